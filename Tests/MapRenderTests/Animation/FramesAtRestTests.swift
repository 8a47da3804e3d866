import Foundation
import Testing
import TestSupport
@testable import MapRender

/// Frames at rest are the still map: at every keyframe, and wherever a track starts or ends (and
/// the first and last frame), the PNG frame is byte-identical to `MapRenderer.render` of that
/// state with the same options, whatever the frame count; effects of clustering (points
/// travelling into bubbles, bubbles growing, ghosts) are over by then.
///
/// A property over generated data: random keyframes with inserts, deletes, small moves and far
/// jumps (so clusters merge and split), colocated points (spread rings), clustering on or off,
/// pins or circles, labels, 2 to 60 frames per transition.
@Suite struct FramesAtRestTests {
    struct Place {
        var id: Int
        var lon: Double
        var lat: Double
    }

    /// Keyframe data around (11°E, 45.5°N), a 160×120 view at zoom 7.
    static func keyframes(_ rng: inout SeededRandom, count: Int) -> [[Place]] {
        var nextID = 0
        // Half of them near the centre, where they cluster at these zooms.
        func randomPlace() -> Place {
            defer { nextID += 1 }
            let spread = Bool.random(using: &rng) ? 0.15 : 1.0
            return Place(id: nextID, lon: 11 + spread * Double.random(in: -1...1, using: &rng),
                         lat: 45.5 + spread * Double.random(in: -0.7...0.7, using: &rng))
        }
        var current = (0..<Int.random(in: 12...40, using: &rng)).map { _ in randomPlace() }
        // A few on one coordinate: a spread ring, or a bubble, depending on the zoom.
        if let first = current.first {
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                var p = randomPlace(); p.lon = first.lon; p.lat = first.lat
                current.append(p)
            }
        }
        var out = [current]
        for _ in 1..<count {
            var next: [Place] = []
            for var p in current {
                let r = Double.random(in: 0..<1, using: &rng)
                if r < 0.15 { continue }                                        // deleted
                if r < 0.35 {                                                   // far jump
                    p.lon = Double.random(in: 10.0...12.0, using: &rng)
                    p.lat = Double.random(in: 44.8...46.2, using: &rng)
                } else if r < 0.7 {                                             // small move
                    p.lon += Double.random(in: -0.1...0.1, using: &rng)
                    p.lat += Double.random(in: -0.1...0.1, using: &rng)
                }
                next.append(p)
            }
            for _ in 0..<Int.random(in: 0...6, using: &rng) { next.append(randomPlace()) }  // inserted
            next.shuffle(using: &rng)
            out.append(next)
            current = next
        }
        return out
    }

    static func geoJSON(_ places: [Place]) -> String {
        let features = places.map { p in
            #"{"type":"Feature","id":\#(p.id),"geometry":{"type":"Point","coordinates":[\#(p.lon),\#(p.lat)]},"properties":{"name":"P\#(p.id)"}}"#
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
    }

    /// Writes `key0.geojson`, `key1.geojson`, … in `dir`, each keyframe's places followed by
    /// `extraFeatures` (GeoJSON features, comma-separated) when given.
    static func writeKeyframes(_ frames: [[Place]], in dir: URL, extraFeatures: String? = nil) throws -> [String] {
        try frames.enumerated().map { j, places in
            let url = dir.appendingPathComponent("key\(j).geojson")
            var text = geoJSON(places)
            if let extra = extraFeatures { text = text.replacingOccurrences(of: "\n]}", with: ",\n" + extra + "\n]}") }
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
    }

    /// The look shared by the animation and the still maps.
    static func base(_ rng: inout SeededRandom) -> RenderRequest {
        var b = RenderRequest()
        b.width = 160
        b.height = 120
        b.view = .center(lat: 45.5, lon: 11, zoom: Double.random(in: 6.0...7.8, using: &rng))
        if Int.random(in: 0..<3, using: &rng) == 0 { b.clustering = nil }
        b.style.marker.shape = Bool.random(using: &rng) ? .pin : .circle
        b.style.marker.size = b.style.marker.shape == .pin ? 16 : 8
        b.layout.labelField = "name"
        return b
    }

    /// Seeds 7 and 8 with callouts, which fade with their markers and keep their side between keyframes.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func keyframesAtRestAreTheStillMap(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &* 7919)
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let frames = [Int.random(in: 2...60, using: &rng), 2, 60, 3, 17, 59, 5, 9][seed - 1]
        let data = Self.keyframes(&rng, count: Int.random(in: 2...3, using: &rng))
        var paths: [String] = []
        for (j, k) in data.enumerated() {
            let url = dir.appendingPathComponent("key\(j).geojson")
            try Self.geoJSON(k).write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        var r = AnimationRequest(source: .keyframes(paths), output: .inMemory(format: .png))
        r.base = Self.base(&rng)
        if seed > 6 {
            r.base.layout.labelStyle = .callout
            r.base.width = 320
            r.base.height = 240
        }
        r.framesPerTransition = frames
        // Effects long enough to run into the next keyframe unless they are cut there.
        r.clusterTransition = Double.random(in: 0.3...1, using: &rng)
        r.jobs = 2
        var rendered: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, d in if k % frames == 0 { rendered[k] = d } })
        var clustersSeen = 0, calloutsSeen = 0
        for (j, path) in paths.enumerated() {
            var still = r.base
            still.inputs = [path]
            let expected = try MapRenderer.render(still)
            clustersSeen += expected.scene.bubbles.count
            calloutsSeen += expected.scene.markCounts["callout", default: 0]
            let frame = try #require(rendered[j * frames])
            #expect(frame == expected.data,
                    "seed \(seed): keyframe \(j) (frame \(j * frames + 1) of \((paths.count - 1) * frames + 1)) differs from the still map")
        }
        if r.base.clustering != nil { #expect(clustersSeen > 0, "seed \(seed): no bubble to test") }
        if seed > 6 { #expect(calloutsSeen > 0, "seed \(seed): no callout to test") }
    }

    /// A colocated group too large to spread is a bubble without a cluster id (clustering off):
    /// its points travel out of it as they leave the coordinate, and the keyframes are the still maps.
    @Test func aGroupTooLargeToSpreadIsABubbleAtRest() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let a = (0..<70).map { Place(id: $0, lon: 11, lat: 45.5) }
        let b = a.map { p in p.id < 12 ? Place(id: p.id, lon: 10.5 + 0.08 * Double(p.id), lat: 45.9) : p }
        let paths = try Self.writeKeyframes([a, b], in: dir)
        var rng = SeededRandom(seed: 99)
        var r = AnimationRequest(source: .keyframes(paths), output: .inMemory(format: .png))
        r.base = Self.base(&rng)
        r.base.clustering = nil
        r.framesPerTransition = 10
        var rendered: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, d in if k % 10 == 0 { rendered[k] = d } })
        let plans = try AnimationRenderer.plans(r)
        #expect(plans[0].bubbles.map(\.count) == [70])
        #expect(plans[10].bubbles.map(\.count) == [58])
        #expect(plans[2].presence.contains { $0 > 0 && $0 < 1 })       // leaving it on the way
        for (j, path) in paths.enumerated() {
            var still = r.base
            still.inputs = [path]
            #expect(rendered[j * 10] == (try MapRenderer.render(still)).data, "keyframe \(j)")
        }
    }

    /// On a coast at city zoom the still map draws the built-in land at 1:50m; the frames at rest
    /// must draw the same land (they drew 1:110m, whose Mallorca is a different shape).
    @Test func framesOnACoastDrawTheStillMapsLand() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let a = [Place(id: 0, lon: 2.65, lat: 39.57), Place(id: 1, lon: 3.2, lat: 39.75), Place(id: 2, lon: 2.9, lat: 39.4)]
        let b = [Place(id: 0, lon: 2.75, lat: 39.6), Place(id: 1, lon: 3.1, lat: 39.8), Place(id: 3, lon: 3.3, lat: 39.5)]
        let paths = try Self.writeKeyframes([a, b], in: dir)
        let (_, rest, stills) = try Self.restFramesAndStills(paths, width: 320, height: 240, view: .center(lat: 39.6, lon: 2.95, zoom: 7))
        for j in paths.indices { #expect(rest[j] == stills[j].data, "keyframe \(j)") }
    }

    /// Keyframes at `paths` animated in `view` with 4 frames per transition: the request, the
    /// frames at rest (one per keyframe, in order) and each keyframe's still map.
    static func restFramesAndStills(_ paths: [String], width: Double, height: Double,
                                    view: ViewSpec) throws -> (request: AnimationRequest, rest: [Data?], stills: [RenderResult]) {
        var r = AnimationRequest(source: .keyframes(paths), output: .inMemory(format: .png))
        r.base.width = width
        r.base.height = height
        r.base.view = view
        r.framesPerTransition = 4
        var rendered: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, d in if k % 4 == 0 { rendered[k] = d } })
        let stills = try paths.map { path in
            var still = r.base
            still.inputs = [path]
            return try MapRenderer.render(still)
        }
        return (r, paths.indices.map { rendered[$0 * 4] }, stills)
    }

    /// Lines and polygons in the keyframes are drawn still under the moving points (the first
    /// keyframe's): frames at rest are the still maps, which draw them too, and a fitted view
    /// takes them in (a polygon far from every point is inside every frame).
    @Test func keyframeLinesAndPolygonsAreDrawnUnderTheMovingPoints() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let shapes = #"""
        {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[12.5,46.5],[13.5,46.5],[13.5,47.2],[12.5,47.2],[12.5,46.5]]]},"properties":{"fill":"#3366cc"}},
        {"type":"Feature","geometry":{"type":"LineString","coordinates":[[10,45],[11,45.6],[12,45.2]]},"properties":{"stroke":"#cc3311","stroke-width":3}}
        """#
        let a = [Place(id: 0, lon: 10.4, lat: 45.3), Place(id: 1, lon: 11.2, lat: 45.8)]
        let b = [Place(id: 0, lon: 10.6, lat: 45.1), Place(id: 1, lon: 11.0, lat: 45.9)]
        let paths = try Self.writeKeyframes([a, b], in: dir, extraFeatures: shapes)
        var (r, rest, stills) = try Self.restFramesAndStills(paths, width: 200, height: 150, view: .center(lat: 46, lon: 11.5, zoom: 6))
        for j in paths.indices {
            let expected = stills[j]
            let batches = expected.scene.items.compactMap { if case .shapes(let b) = $0 { return b } else { return nil } }
            #expect(batches.contains { $0.strokeWidth == 3 && $0.kind == .line }, "the still map draws the line")
            #expect(batches.contains { $0.fill.r < 0.3 && $0.fill.b > 0.7 }, "the still map draws the polygon")
            #expect(rest[j] == expected.data, "keyframe \(j)")
        }
        // Fitted: the polygon, 1.5° east of every point, is inside the view.
        r.base.view = .fit(zoom: nil)
        let plans = try AnimationRenderer.plans(r)
        for plan in plans {
            let v = plan.viewport
            for (lon, lat) in [(12.5, 46.5), (13.5, 47.2), (10.0, 45.0)] {
                let p = v.pixel(x: WebMercator.x(lon: lon), y: WebMercator.y(lat: lat))
                #expect(p.x >= 0 && p.x <= 200 && p.y >= 0 && p.y <= 150, "(\(lon), \(lat)) at \(p) is outside the frame")
            }
        }
    }

    /// Tracks sampled on frame times (every 10 s): each track's first and last sample, and the first
    /// and last frame, are at rest.
    @Test(arguments: [11, 12, 13, 14])
    func tracksAtTheirStartAndEndAreTheStillMap(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &* 104729)
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let count = Int.random(in: 2...40, using: &rng)
        var csv = "id,time,lat,lon\n"
        var restTimes: Set<Int> = [0, count - 1]
        for id in 0..<Int.random(in: 5...25, using: &rng) {
            let a = Int.random(in: 0..<count, using: &rng), b = Int.random(in: 0..<count, using: &rng)
            let (first, last) = (min(a, b), max(a, b))
            restTimes.insert(first); restTimes.insert(last)
            var lon = Double.random(in: 10.0...12.0, using: &rng), lat = Double.random(in: 44.8...46.2, using: &rng)
            for k in first...last where k == first || k == last || Bool.random(using: &rng) {
                lon += Double.random(in: -0.2...0.2, using: &rng); lat += Double.random(in: -0.2...0.2, using: &rng)
                csv += "t\(id),\(1_000_000 + 10 * k),\(lat),\(lon)\n"
            }
        }
        let path = dir.appendingPathComponent("tracks.csv").path
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        var r = AnimationRequest(source: .tracks(path, TrackColumns(id: "id", time: "time")), output: .inMemory(format: .png))
        r.base = Self.base(&rng)
        r.base.layout.labelField = "id"
        r.start = 1_000_000
        r.end = Double(1_000_000 + 10 * (count - 1))
        r.frameCount = count
        r.clusterTransition = Double(10 * count) * Double.random(in: 0.2...1, using: &rng)
        r.jobs = 2
        var rendered: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, d in if restTimes.contains(k) { rendered[k] = d } })
        let plans = try AnimationRenderer.plans(r)
        for k in restTimes.sorted() {
            #expect(plans[k].atRest)
            var still = r.base
            still.points = plans[k].points
            let expected = try MapRenderer.render(still)
            #expect(rendered[k] == expected.data, "seed \(seed): frame \(k + 1) of \(count) (a track starts or ends) differs from the still map")
        }
    }
}
