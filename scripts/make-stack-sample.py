#!/usr/bin/env python3
"""Writes samples/stacks.csv: a flight-style table of stacks (issue 47) on real airport coordinates.

One row per made-up route at its origin airport, so each airport is a stack of rows on one
coordinate: 30 airports with 400, 60, 12, 4 and 2 rows in turn (Chicago's O'Hare 400, Midway 60,
Palwaukee 12, DuPage 4, Gary 2, ...), and one row at every 40th other airport of the contiguous US
(in code order) for the pins around them. Coordinates from samples/airports_us.csv, unchanged.
Deterministic: run again, the same bytes.

    scripts/make-stack-sample.py            # rewrites samples/stacks.csv
"""
import csv
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SIZES = [400, 60, 12, 4, 2]
STACKS = ["ORD", "MDW", "PWK", "DPA", "GYY", "ATL", "DEN", "UGN", "ARR", "LOT",
          "JFK", "LGA", "EWR", "BOS", "PHL", "LAX", "SFO", "SEA", "DFW", "IAH",
          "MCO", "MIA", "FLL", "TPA", "PHX", "MSP", "DTW", "CLT", "SLC", "STL"]


def main():
    airports = {}
    with open(os.path.join(ROOT, "samples", "airports_us.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            airports[row["iata"]] = row
    rows = [(code, SIZES[k % len(SIZES)]) for k, code in enumerate(STACKS)]
    singles = sorted(code for code, a in airports.items()
                     if code not in STACKS and 24 <= float(a["latitude"]) <= 50 and -125 <= float(a["longitude"]) <= -66)
    rows += [(code, 1) for k, code in enumerate(singles) if k % 40 == 0]
    with open(os.path.join(ROOT, "samples", "stacks.csv"), "w", newline="", encoding="utf-8") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["id", "origin", "city", "lat", "lon"])
        n = 0
        for code, count in rows:
            a = airports[code]
            for _ in range(count):
                n += 1
                w.writerow([n, code, a["city"], a["latitude"], a["longitude"]])


if __name__ == "__main__":
    main()
