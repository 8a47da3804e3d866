#!/usr/bin/env python3
"""Renders a MapLibre style with MapLibre Native (PyPI pymgl) headless, for the basemap-style oracle.

usage: pymgl_oracle.py STYLE.json OUT.png WIDTH HEIGHT LON LAT ZOOM MBTILES [--symbols GLYPHS_DIR]

Every vector source of the style is pointed at MBTILES (mbtiles://: pymgl's MapLibre Native reads
local MBTiles, not pmtiles://); a sprite is kept when it is a local file:// one (of an array, the local ones); symbol layers are left out unless --symbols (glyphs differ by
design, and the style's glyph and sprite servers are not reachable offline); with --symbols the
glyphs come from GLYPHS_DIR/{fontstack}/{range}.pbf (make_glyphs.py writes them from the pinned
DejaVu Sans). Run with EGL_PLATFORM=surfaceless
(Mesa's software EGL)."""
import json, os, sys

os.environ.setdefault("EGL_PLATFORM", "surfaceless")
from pymgl import Map

style_path, out, w, h, lon, lat, zoom, mbtiles = sys.argv[1:9]
symbols = "--symbols" in sys.argv[9:]
glyphs = sys.argv[sys.argv.index("--symbols") + 1] if symbols else None
style = json.load(open(style_path))
for s in style.get("sources", {}).values():
    if s.get("type") == "vector":
        s.pop("tiles", None)
        s["url"] = "mbtiles://" + os.path.abspath(mbtiles)
# A local sprite (file://) is drawn, a server's is not reachable; of an array of sprites, the local ones.
sprite = style.get("sprite")
if isinstance(sprite, list):
    style["sprite"] = [s for s in sprite if str(s.get("url", "")).startswith("file://")]
elif not str(sprite or "").startswith("file://"):
    style.pop("sprite", None)
if symbols:
    style["glyphs"] = "file://" + os.path.abspath(glyphs) + "/{fontstack}/{range}.pbf"
else:
    style["layers"] = [l for l in style["layers"] if l["type"] != "symbol"]
    style.pop("glyphs", None)
m = Map(json.dumps(style), int(w), int(h), 1, float(lon), float(lat), float(zoom))
with open(out, "wb") as f:
    f.write(m.renderPNG())
