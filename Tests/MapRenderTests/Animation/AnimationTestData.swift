import TestSupport
import Foundation
@testable import MapRender

/// Keyframes derived from the shared Natural Earth populated places, and small helpers.
enum AnimationTestData {
    static let places = TestPaths.shared("populated_places_110m.geojson")
    static let tracks = TestPaths.shared("tracks.csv")
    static let countries = TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")

    struct Feature {
        var id: Int
        var lon: Double
        var lat: Double
        var name: String
    }

    /// Renders `r` (whose output is an animated SVG at `svgPath`), then the same animation as PNG
    /// frames in memory: the SVG's text and the frames by index, to compare the two.
    static func animatedSVGAndPNGFrames(_ r: AnimationRequest, svgPath: String) throws -> (svg: String, frames: [Int: Data]) {
        try AnimationRenderer.render(r)
        var pngRequest = r
        pngRequest.output = .inMemory(format: .png)
        var frames: [Int: Data] = [:]
        try AnimationRenderer.render(pngRequest, onFrame: { k, d in frames[k] = d })
        return (try String(contentsOfFile: svgPath, encoding: .utf8), frames)
    }

    /// The shared places (id, position, name).
    static func loadPlaces() throws -> [Feature] {
        let loaded = try PointReader.read(path: places, options: InputOptions())
        let p = loaded.points
        return try (0..<p.count).map { i in
            guard i < p.ids.count, case .number(let id) = p.ids[i] else {
                throw MapRenderError(.inputMalformed, "\(places): feature \(i) has no numeric id (the tests need the places' ids)")
            }
            return Feature(id: Int(id), lon: p.lon[i], lat: p.lat[i], name: p.properties.value("name", row: i).displayText ?? "")
        }
    }

    /// Keyframe B from A: ids divisible by 10 are deleted, ids divisible by 3 move (25° east,
    /// 10° south, wrapping at 180°), the others stay, and five new places (ids from `newIDs`) are inserted.
    static func changed(_ a: [Feature], newIDs: Int = 1000) -> [Feature] {
        var b: [Feature] = []
        for f in a where f.id % 10 != 0 {
            var g = f
            if f.id % 3 == 0 {
                var lon = f.lon + 25
                if lon >= 180 { lon -= 360 }
                g.lon = lon
                g.lat = max(-80, min(80, f.lat - 10))
            }
            b.append(g)
        }
        for k in 0..<5 {
            b.append(Feature(id: newIDs + k, lon: -150 + 20 * Double(k), lat: 10 + 5 * Double(k), name: "New \(k)"))
        }
        return b
    }

    /// `ranked`: each feature also has a `rank` property, its id (smaller ranks first), so that
    /// bubbles are named after their best-ranked member (without a ranking, a bubble of places
    /// with different names shows its count alone: issue 47).
    static func geoJSON(_ features: [Feature], ranked: Bool = false) -> String {
        let items = features.map { f in
            let rank = ranked ? #","rank":\#(f.id)"# : ""
            return #"{"type":"Feature","id":\#(f.id),"geometry":{"type":"Point","coordinates":[\#(f.lon),\#(f.lat)]},"properties":{"name":"\#(f.name)"\#(rank)}}"#
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + items.joined(separator: ",\n") + "\n]}\n"
    }

    /// A fresh temporary folder.
    static func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("animation-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// Writes keyframe files into `dir`; returns their paths.
    static func write(_ frames: [[Feature]], to dir: URL, ranked: Bool = false) throws -> [String] {
        try frames.enumerated().map { (k, f) in
            let url = dir.appendingPathComponent("key\(k).geojson")
            try geoJSON(f, ranked: ranked).write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
    }

    /// Keyframes as CSV files (`id,name,lat,lon` and `rows` each) in `dir`, in order.
    static func writeCSV(_ frames: [[String]], to dir: URL) throws -> [String] {
        try frames.enumerated().map { (k, rows) in
            let url = dir.appendingPathComponent("key\(k).csv")
            try ("id,name,lat,lon\n" + rows.map { $0 + "\n" }.joined()).write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
    }

    /// The A → B keyframes of the shared places, written to `dir`.
    static func placesKeyframes(in dir: URL, ranked: Bool = false) throws -> [String] {
        let a = try loadPlaces()
        return try write([a, changed(a)], to: dir, ranked: ranked)
    }

    /// A small request: 320×200, circles, no basemap.
    static func request(_ source: AnimationRequest.Source, output: AnimationRequest.Output = .inMemory(format: .png)) -> AnimationRequest {
        var r = AnimationRequest(source: source, output: output)
        r.base.width = 320
        r.base.height = 200
        r.base.style.marker.shape = .circle
        r.base.style.marker.size = 8
        r.framesPerTransition = 6
        return r
    }

    /// The shared populated places moving between their keyframes (`placesKeyframes`, written into
    /// `dir`): 640x400, 24 frames a transition, bubbles merging and splitting over a quarter of
    /// each (the map of the transition and animated-SVG scene tests).
    static func placesRequest(in dir: URL, output: AnimationRequest.Output = .inMemory(format: .png)) throws -> AnimationRequest {
        var r = request(.keyframes(try placesKeyframes(in: dir)), output: output)
        r.base.width = 640
        r.base.height = 400
        r.framesPerTransition = 24
        r.clusterTransition = 0.25
        return r
    }

    /// Width and height from a PNG's IHDR.
    static func pngSize(_ data: Data) -> (Int, Int) {
        let b = [UInt8](data.prefix(24))
        func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        return (u32(16), u32(20))
    }

    /// (type, data) of every chunk of a PNG.
    static func chunks(_ data: Data) -> [(String, [UInt8])] {
        let b = [UInt8](data)
        var out: [(String, [UInt8])] = []
        var i = 8
        while i + 8 <= b.count {
            let n = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append((type, Array(b[(i + 8)..<(i + 8 + n)])))
            i += 12 + n
        }
        return out
    }

    static func u32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }
}
