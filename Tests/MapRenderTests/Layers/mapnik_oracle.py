#!/usr/bin/python3
"""The independent oracle for maprender's fill and line layers: Mapnik (Debian python3-mapnik)
draws the same GeoJSON over the same EPSG:3857 extent and size.

  /usr/bin/python3 mapnik_oracle.py data.geojson out.png SPEC.json

SPEC: {"width": W, "height": H, "extent": [minx, miny, maxx, maxy] (EPSG:3857 metres),
       "background": "#rrggbb", "project": false,
       "rules": [{"filter": "[rate] < 5" (optional),
                  "polygon": {"fill": "#rrggbb", "fill-opacity": 1} (optional),
                  "line": {"stroke": "#rrggbb", "stroke-width": 2, "stroke-opacity": 1,
                           "stroke-dasharray": "6,3", "stroke-linecap": "round",
                           "stroke-linejoin": "round"} (optional)}]}
Rules are drawn as one style, polygons then lines per feature, as Mapnik's symbolizers do.
With "project", the data's longitudes and latitudes are turned into EPSG:3857 metres here, as
given (a longitude past 180 stays past it: Mapnik draws no world copies), and read unprojected.
"""
import json
import math
import sys
import tempfile
from xml.sax.saxutils import quoteattr

import mapnik

MERC = ("+proj=merc +a=6378137 +b=6378137 +lat_ts=0.0 +lon_0=0.0 +x_0=0.0 +y_0=0.0 "
        "+k=1.0 +units=m +nadgrids=@null +wktext +no_defs +over")
WGS84 = "+proj=longlat +ellps=WGS84 +datum=WGS84 +no_defs +over"


def symbolizer(name, attrs):
    return "<%s %s/>" % (name, " ".join("%s=%s" % (k, quoteattr(str(v))) for k, v in attrs.items()))


def mercator(doc):
    """The GeoJSON with every position in EPSG:3857 metres (spherical, R = 6378137)."""
    r = 6378137.0

    def walk(c):
        if isinstance(c[0], (int, float)):
            lat = max(-85.0511287798, min(85.0511287798, c[1]))
            return [math.radians(c[0]) * r, math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) * r]
        return [walk(x) for x in c]

    def geom(g):
        if g["type"] == "GeometryCollection":
            return dict(g, geometries=[geom(x) for x in g["geometries"]])
        return dict(g, coordinates=walk(g["coordinates"]))

    if doc["type"] == "FeatureCollection":
        return dict(doc, features=[dict(f, geometry=geom(f["geometry"])) for f in doc["features"]])
    if doc["type"] == "Feature":
        return dict(doc, geometry=geom(doc["geometry"]))
    return geom(doc)


def main():
    data, out, spec_path = sys.argv[1:4]
    spec = json.load(open(spec_path))
    srs = WGS84
    if spec.get("project"):
        projected = tempfile.NamedTemporaryFile("w", suffix=".geojson", delete=False)
        json.dump(mercator(json.load(open(data))), projected)
        projected.close()
        data, srs = projected.name, MERC
    rules = []
    for r in spec["rules"]:
        body = ""
        if "filter" in r:
            body += "<Filter>%s</Filter>" % r["filter"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        if "polygon" in r:
            body += symbolizer("PolygonSymbolizer", r["polygon"])
        if "line" in r:
            body += symbolizer("LineSymbolizer", r["line"])
        rules.append("<Rule>%s</Rule>" % body)
    xml = ('<Map srs="%s" background-color="%s"><Style name="s">%s</Style>'
           '<Layer name="data" srs="%s"><StyleName>s</StyleName>'
           '<Datasource><Parameter name="type">geojson</Parameter><Parameter name="file">%s</Parameter></Datasource>'
           '</Layer></Map>') % (MERC, spec["background"], "".join(rules), srs, data)
    m = mapnik.Map(spec["width"], spec["height"])
    mapnik.load_map_from_string(m, xml)
    m.zoom_to_box(mapnik.Box2d(*spec["extent"]))
    mapnik.render_to_file(m, out, "png32")


if __name__ == "__main__":
    main()
