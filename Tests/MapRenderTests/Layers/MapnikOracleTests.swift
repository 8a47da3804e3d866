import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
@testable import MapRender

/// maprender's fill and line layers against an independent renderer: Mapnik (Debian
/// python3-mapnik, installed by scripts/deps.sh) draws the same GeoJSON with the equivalent
/// symbolizers over the same EPSG:3857 extent and size. They may differ only where two
/// anti-aliasing rasterisers do: at most 2% of pixels beyond the comparison's colour threshold.
@Suite(.serialized) struct MapnikOracleTests {
    static let script = TestPaths.repoFile("Tests/MapRenderTests/Layers/mapnik_oracle.py")

    /// Whether Debian's python3 can import mapnik (nil), or why not.
    static let unavailable: String? = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import mapnik"]
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return "no /usr/bin/python3" }
        p.waitUntilExit()
        return p.terminationStatus == 0 ? nil : "python3-mapnik is not installed (scripts/deps.sh installs it)"
    }()

    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-mapnik-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// Renders `data` with maprender (style `styleJSON`, view at lat/lon/zoom) and with Mapnik
    /// (`rules`, on `mapnikData` or `data`); the share of pixels that differ.
    func difference(_ name: String, data: String, mapnikData: String? = nil, styleJSON: String,
                    rules: [[String: Any]], project: Bool = false, lat: Double, lon: Double, zoom: Double,
                    width: Double = 512, height: Double = 384,
                    configure: (inout RenderRequest) -> Void = { _ in }) throws -> Double {
        var r = RenderRequest()
        r.inputs = [data]
        r.defaultBasemap = false
        r.layout.scaleBar = false
        r.width = width; r.height = height
        r.view = .center(lat: lat, lon: lon, zoom: zoom)
        r.style = try Style.parse(data: Data(styleJSON.utf8), name: name)
        configure(&r)
        let ours = try MapRenderer.render(r)
        let v = ours.viewport
        // The view's extent in EPSG:3857 metres.
        let circumference = 2 * Double.pi * 6378137
        let hw = v.width / 2 / v.worldSize, hh = v.height / 2 / v.worldSize
        // The world copy around the asked longitude (180° is the same as -180° to the view).
        let cx = v.centerX + ((lon + 180) / 360 - v.centerX).rounded()
        let extent = [(cx - hw - 0.5) * circumference, (0.5 - v.centerY - hh) * circumference,
                      (cx + hw - 0.5) * circumference, (0.5 - v.centerY + hh) * circumference]
        let spec: [String: Any] = ["width": Int(width), "height": Int(height), "extent": extent,
                                   "background": r.style.background.description, "rules": rules, "project": project]
        let specPath = dir.appendingPathComponent("\(name).json").path
        try JSONSerialization.data(withJSONObject: spec).write(to: URL(fileURLWithPath: specPath))
        let theirs = dir.appendingPathComponent("\(name)-mapnik.png").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [Self.script, mapnikData ?? data, theirs, specPath]
        try p.run(); p.waitUntilExit()
        #expect(p.terminationStatus == 0, "mapnik_oracle.py failed for \(name)")
        let oursPath = dir.appendingPathComponent("\(name).png").path
        try ours.data.write(to: URL(fileURLWithPath: oursPath))
        let a = try PNGCodec.decode(data: ours.data)
        let b = try PNGCodec.decode(data: try Data(contentsOf: URL(fileURLWithPath: theirs)))
        let d = try ImageDiff.compare(a, b, options: .init(threshold: 0.1)).differentFraction
        print("maprender vs Mapnik, \(name): \(String(format: "%.3f", d * 100))% of pixels differ (\(oursPath), \(theirs))")
        return d
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func polygonsWithHoles() throws {
        if let why = Self.unavailable { print("skipped: \(why)"); return }
        let data = try write("holes.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [
                [[0, 0], [10, 0], [10, 8], [0, 8], [0, 0]], [[2, 2], [4, 2], [4, 4], [2, 4], [2, 2]], [[6, 3], [8, 5], [6, 6], [6, 3]]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "MultiPolygon", "coordinates": [
                [[[12, 0], [16, 0], [14, 6], [12, 0]]], [[[12, 7], [16, 7], [16, 9], [12, 9], [12, 7]], [[13, 7.5], [15, 7.5], [15, 8.5], [13, 8.5], [13, 7.5]]]]}}
            ]}
            """)
        let d = try difference("holes", data: data, styleJSON: """
            {"layers": [{"id": "f", "type": "fill", "paint": {"fill-color": "#2a7f62", "fill-outline-color": "#123456", "fill-outline-width": 2}}]}
            """, rules: [["polygon": ["fill": "#2a7f62"], "line": ["stroke": "#123456", "stroke-width": 2, "stroke-linejoin": "round", "stroke-linecap": "round"]]],
            lat: 4.5, lon: 8, zoom: 4.6)
        #expect(d <= 0.02)
    }

    /// Fiji as Natural Earth splits it on ±180°; Mapnik gets the western part shifted by 360°
    /// and projected by the oracle script itself (it draws no world copies), the same polygons
    /// the short way across.
    @Test func multiPolygonAcrossTheAntimeridian() throws {
        if let why = Self.unavailable { print("skipped: \(why)"); return }
        let data = try write("fiji.geojson", """
            {"type": "Feature", "properties": {}, "geometry": {"type": "MultiPolygon", "coordinates": [
              [[[176, -20], [180, -20], [180, -14], [176, -14], [176, -20]]],
              [[[-180, -20], [-176, -17], [-180, -14], [-180, -20]]]]}}
            """)
        let shifted = try write("fiji-shifted.geojson", """
            {"type": "Feature", "properties": {}, "geometry": {"type": "MultiPolygon", "coordinates": [
              [[[176, -20], [180, -20], [180, -14], [176, -14], [176, -20]]],
              [[[180, -20], [184, -17], [180, -14], [180, -20]]]]}}
            """)
        let d = try difference("fiji", data: data, mapnikData: shifted, styleJSON: """
            {"layers": [{"id": "f", "type": "fill", "paint": {"fill-color": "#c8a165"}}]}
            """, rules: [["polygon": ["fill": "#c8a165"]]], project: true, lat: -17, lon: 180, zoom: 5)
        #expect(d <= 0.02)
    }

    @Test func dashedLine() throws {
        if let why = Self.unavailable { print("skipped: \(why)"); return }
        let data = try write("dash.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[-10, -5], [0, 5], [10, -5], [20, 5]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "MultiLineString", "coordinates": [[[-10, -8], [20, -8]], [[-10, 8], [20, 8]]]}}
            ]}
            """)
        let d = try difference("dash", data: data, styleJSON: """
            {"layers": [{"id": "l", "type": "line", "layout": {"line-cap": "butt", "line-join": "round"},
              "paint": {"line-color": "#d62728", "line-width": 3, "line-dasharray": [3, 2]}}]}
            """, rules: [["line": ["stroke": "#d62728", "stroke-width": 3, "stroke-dasharray": "9,6",
                                  "stroke-linecap": "butt", "stroke-linejoin": "round"]]],
            lat: 0, lon: 5, zoom: 3.6)
        #expect(d <= 0.02)
    }

    /// Natural Earth countries coloured by population in four steps.
    @Test func choroplethOfCountries() throws {
        if let why = Self.unavailable { print("skipped: \(why)"); return }
        let data = TestPaths.shared("ne_110m_admin_0_countries.geojson")
        let steps: [(Double, String)] = [(0, "#fee5d9"), (5e6, "#fcae91"), (2e7, "#fb6a4a"), (1e8, "#cb181d")]
        var rules: [[String: Any]] = []
        for (i, (lo, colour)) in steps.enumerated() {
            var filter = "[POP_EST] >= \(Int(lo))"
            if i + 1 < steps.count { filter += " and [POP_EST] < \(Int(steps[i + 1].0))" }
            if i == 0 { filter = "[POP_EST] < \(Int(steps[1].0))" }
            rules.append(["filter": filter, "polygon": ["fill": colour]])
        }
        rules.append(["line": ["stroke": "#ffffff", "stroke-width": 0.5, "stroke-linejoin": "round", "stroke-linecap": "round"]])
        let d = try difference("choropleth", data: data, styleJSON: """
            {"layers": [{"id": "c", "type": "fill", "paint": {
              "fill-color": ["step", ["get", "POP_EST"], "#fee5d9", 5000000, "#fcae91", 20000000, "#fb6a4a", 100000000, "#cb181d"],
              "fill-outline-color": "#ffffff", "fill-outline-width": 0.5}}]}
            """, rules: rules, lat: 48, lon: 15, zoom: 2.8, width: 800, height: 500)
        #expect(d <= 0.02)
    }

    /// Great-circle arcs (`--to-lat`/`--to-lon`) from Los Angeles to Tokyo and from Nadi to
    /// Papeete, both across 180°: Mapnik draws the same arcs as GeographicLib computes them
    /// (200 positions each along the geodesic of a 6371008.8 m sphere, by python3-geographiclib,
    /// longitudes unwrapped past 180°), maprender from the rows. The line widths differ per row
    /// (an expression of `flights`).
    @Test func greatCircleArcsAcrossTheAntimeridian() throws {
        if let why = Self.unavailable { print("skipped: \(why)"); return }
        let rows = try write("routes.csv", """
            name,lat,lon,dest_lat,dest_lon,flights
            LAX-NRT,33.94253611,-118.4080744,35.7647,140.3864,14
            NAN-PPT,-17.7554,177.4434,-17.5537,-149.6066,3
            """)
        let geojson = dir.appendingPathComponent("arcs.geojson").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", """
            import json, sys
            from geographiclib.geodesic import Geodesic
            S = Geodesic(6371008.8, 0)
            feats = []
            for (a, b, c, d, w) in [(33.94253611, -118.4080744, 35.7647, 140.3864, 14), (-17.7554, 177.4434, -17.5537, -149.6066, 3)]:
                l = S.InverseLine(a, b, c, d)
                # Mapnik draws no world copies: both arcs as seen around 175°W.
                pts, prev = [], (b - 360 if b > 0 else b)
                for k in range(201):
                    q = l.Position(l.s13 * k / 200)
                    x = q['lon2']
                    while x - prev > 180: x -= 360
                    while x - prev < -180: x += 360
                    prev = x
                    pts.append([x, q['lat2']])
                feats.append({'type': 'Feature', 'properties': {'flights': w}, 'geometry': {'type': 'LineString', 'coordinates': pts}})
            json.dump({'type': 'FeatureCollection', 'features': feats}, open(sys.argv[1], 'w'))
            """, geojson]
        try p.run(); p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            Issue.record("python3-geographiclib is needed (scripts/deps.sh installs it)"); return
        }
        let d = try difference("arcs", data: rows, mapnikData: geojson, styleJSON: """
            {"layers": [{"id": "r", "type": "line", "layout": {"line-cap": "round", "line-join": "round"},
              "paint": {"line-color": "#c2185b", "line-width": ["case", [">", ["get", "flights"], 10], 3, 1.5]}}]}
            """, rules: [["filter": "[flights] > 10", "line": ["stroke": "#c2185b", "stroke-width": 3, "stroke-linecap": "round", "stroke-linejoin": "round"]],
                         ["filter": "[flights] <= 10", "line": ["stroke": "#c2185b", "stroke-width": 1.5, "stroke-linecap": "round", "stroke-linejoin": "round"]]],
            project: true, lat: 14, lon: -175, zoom: 1.9, width: 700, height: 420) { r in
                r.pointArcs = PointArcs(latField: "dest_lat", lonField: "dest_lon")
                r.lineOnly = true
            }
        #expect(d <= 0.02)
    }

    /// Flows as the bench draws them (translucent great-circle arcs, width by count, butt caps
    /// and miter joins, the thin lines `ThinLineRaster` draws into the pixels): 400 arcs between
    /// Europe and Asia in three widths, cycling so that each arc is a batch of its own (a batch
    /// is one union; Mapnik blends each feature on its own). Mapnik draws the arcs in 1° steps
    /// (`GreatCircle.arc`, within 1e-5 of the world's width of the true arc); maprender cuts its
    /// own from the two ends, to a fifth of a pixel of the view (`forEachGreatCircleVertex`).
    @Test func translucentFlows() throws {
        if let why = Self.unavailable { print("skipped: \(why)"); return }
        var rng = SeededRandom(seed: 400)
        let hubs = (0..<8).map { _ in (Double.random(in: 25...55, using: &rng), Double.random(in: 0...100, using: &rng)) }
        var csv = "lat,lon,dest_lat,dest_lon,count\n"
        var features: [String] = []
        for k in 0..<400 {
            let h = hubs[Int.random(in: 0..<hubs.count, using: &rng)]
            let d = (Double.random(in: 5...65, using: &rng), Double.random(in: -10...130, using: &rng))
            let count = 1 + 33 * (k % 3) + Int.random(in: 0..<33, using: &rng)
            csv += "\(h.0),\(h.1),\(d.0),\(d.1),\(count)\n"
            guard let arc = GreatCircle.arc(lat1: h.0, lon1: h.1, lat2: d.0, lon2: d.1) else { continue }
            let coords = (0..<(arc.count / 2)).map { "[\(arc[2 * $0]),\(arc[2 * $0 + 1])]" }.joined(separator: ",")
            features.append(#"{"type":"Feature","properties":{"count":\#(count)},"geometry":{"type":"LineString","coordinates":[\#(coords)]}}"#)
        }
        let rows = try write("flows.csv", csv)
        let lines = try write("flows.geojson", #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}")
        let line: (Double) -> [String: Any] = { w in
            ["stroke": "#c2185b", "stroke-opacity": 0.35, "stroke-width": w, "stroke-linecap": "butt", "stroke-linejoin": "miter"]
        }
        let d = try difference("flows", data: rows, mapnikData: lines, styleJSON: """
            {"layers": [{"id": "flows", "type": "line", "paint": {"line-color": "#c2185b", "line-opacity": 0.35,
              "line-width": ["step", ["get", "count"], 0.75, 34, 1.5, 67, 2.5]}}]}
            """, rules: [["filter": "[count] < 34", "line": line(0.75)],
                         ["filter": "[count] >= 34 and [count] < 67", "line": line(1.5)],
                         ["filter": "[count] >= 67", "line": line(2.5)]],
            project: true, lat: 38, lon: 60, zoom: 2.3, width: 700, height: 420) { r in
                r.pointArcs = PointArcs(latField: "dest_lat", lonField: "dest_lon")
                r.lineOnly = true
            }
        #expect(d <= 0.02)
    }
}
