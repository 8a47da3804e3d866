#!/usr/bin/python3
"""Writes the samples of the routes examples, deterministically (run it again: the same files):

- samples/flights.csv: made-up flight routes (flights a week) between real airports, for the
  great-circle arcs (--to-lat/--to-lon). US airports' coordinates are read from
  samples/airports_us.csv (OurAirports via vega_datasets, public domain); the airports abroad are
  given below (their published aerodrome reference points, rounded).
- samples/tissot.csv: points every 30° of longitude and 20° of latitude (Tissot's indicatrix
  with --circle-radius).
- samples/track-stops.geojson: the car track of samples/tracks.csv (gpxpy's test file
  visnjan, Apache-2.0) as one LineString, and a stop (a Point) at its start and every 450 m
  along it, for --number-markers.

  scripts/make-route-samples.py
"""
import csv
import json
import math
import os
import sys

ABROAD = {
    "NRT": ("Tokyo Narita", 35.7647, 140.3864), "ICN": ("Seoul Incheon", 37.4602, 126.4407),
    "HKG": ("Hong Kong", 22.3080, 113.9185), "SYD": ("Sydney", -33.9461, 151.1772),
    "AKL": ("Auckland", -37.0082, 174.7850), "MNL": ("Manila", 14.5086, 121.0194),
    "TPE": ("Taipei Taoyuan", 25.0777, 121.2328), "PPT": ("Papeete Faa'a", -17.5537, -149.6066),
    "NAN": ("Nadi", -17.7554, 177.4434),
}
ROUTES = {
    "LAX": "NRT 14 ICN 14 HKG 7 SYD 14 AKL 7 MNL 7 TPE 7 PPT 3 JFK 70 ORD 56 ATL 42 SEA 49 HNL 63 DEN 49",
    "SFO": "NRT 14 ICN 7 HKG 14 SYD 7 TPE 7 NAN 3 JFK 56 ORD 42 SEA 35 HNL 35 BOS 28",
    "SEA": "NRT 7 ICN 7 ANC 42 HNL 21 ORD 28 JFK 28 ATL 21",
    "JFK": "NRT 7 HKG 7 LAX 70 SFO 56 MIA 49 ATL 56 ORD 42",
    "ORD": "NRT 7 HKG 7 LAX 56 SFO 42 DEN 56 ATL 56 BOS 42 DFW 56 SEA 28 MIA 35",
    "ATL": "ICN 7 LAX 42 JFK 56 ORD 56 DFW 49 MIA 56 DEN 42 BOS 35 DTW 42",
    "DFW": "NRT 7 ICN 7 SYD 7 LAX 49 ORD 56 ATL 49 DEN 42 JFK 42 PHX 35",
    "DEN": "NRT 7 LAX 49 SFO 42 ORD 56 ATL 42 DFW 42 SEA 35 LAS 42 MSP 28",
    "HNL": "NRT 28 ICN 14 SYD 7 AKL 3 MNL 7 PPT 3 NAN 3 OGG 70 LAX 63 SFO 35 SEA 21 ANC 3",
    "ANC": "ICN 7 SEA 42",
}

here = os.path.dirname(os.path.abspath(__file__))
airports = {}
with open(os.path.join(here, "..", "samples", "airports_us.csv"), newline="") as f:
    for row in csv.DictReader(f):
        airports[row["iata"]] = (row["city"], float(row["latitude"]), float(row["longitude"]))
airports.update(ABROAD)

samples = os.path.join(here, "..", "samples")
out = csv.writer(open(os.path.join(samples, "flights.csv"), "w", newline=""), lineterminator="\n")
out.writerow(["origin", "city", "lat", "lon", "dest", "dest_city", "dest_lat", "dest_lon", "flights"])
for origin, text in ROUTES.items():
    words = text.split()
    for dest, flights in zip(words[::2], words[1::2]):
        o, d = airports[origin], airports[dest]
        out.writerow([origin, o[0], o[1], o[2], dest, d[0], d[1], d[2], flights])

with open(os.path.join(samples, "tissot.csv"), "w") as f:
    f.write("name,lat,lon\n")
    for lat in range(-60, 81, 20):
        for lon in range(-150, 151, 30):
            f.write("%d/%d,%d,%d\n" % (lat, lon, lat, lon))

fixes = []
with open(os.path.join(samples, "tracks.csv"), newline="") as f:
    for row in csv.DictReader(f):
        if row["id"] == "gps-visnjan-car-2020-12-18":
            fixes.append((row["time"], float(row["lon"]), float(row["lat"])))
fixes.sort()
# A stop every 450 m along the track (equirectangular distances: the track is 3 km long).
stops, since = [0], 0.0
for k in range(1, len(fixes)):
    (_, x0, y0), (_, x1, y1) = fixes[k - 1], fixes[k]
    dx = math.radians(x1 - x0) * math.cos(math.radians((y0 + y1) / 2)) * 6371008.8
    dy = math.radians(y1 - y0) * 6371008.8
    since += math.hypot(dx, dy)
    if since >= 450:
        stops.append(k)
        since = 0.0
features = [{"type": "Feature", "properties": {"name": "visnjan car 2020-12-18", "stroke": "#2b6cb0", "stroke-width": 3},
             "geometry": {"type": "LineString", "coordinates": [[lon, lat] for _, lon, lat in fixes]}}]
for k in stops:
    t, lon, lat = fixes[k]
    features.append({"type": "Feature", "properties": {"time": t},
                     "geometry": {"type": "Point", "coordinates": [lon, lat]}})
with open(os.path.join(samples, "track-stops.geojson"), "w") as f:
    json.dump({"type": "FeatureCollection", "features": features}, f, indent=None, separators=(",", ":"))
    f.write("\n")
