import Foundation
import Testing
import MapRenderCairo
import TestSupport
@testable import MapRender

/// `maprender animate --trail DURATION`: each moving point's recent path as a fading line, the
/// same in the PNG frames and the animated SVG (opened in Chromium), and frames at rest that are
/// the still map with their trail: byte for byte after a pause (no trail left), and everywhere
/// but on the trail's own pixels after motion.
@Suite struct TrailTests {
    /// Two points moving east (one also north) between keyframes A → B, then standing still (B again).
    static func request(in dir: URL, output: AnimationRequest.Output = .inMemory(format: .png)) throws -> AnimationRequest {
        let paths = try AnimationTestData.writeCSV([
            ["1,Ada,45.0,9.0", "2,Bea,44.0,9.5"],
            ["1,Ada,45.0,12.0", "2,Bea,46.0,12.5"],
            ["1,Ada,45.0,12.0", "2,Bea,46.0,12.5"],
        ], to: dir)
        var r = AnimationRequest(source: .keyframes(paths), output: output)
        r.base.width = 320
        r.base.height = 240
        r.base.view = .center(lat: 45, lon: 11, zoom: 5.5)
        r.base.style.marker.shape = .circle
        r.base.style.marker.size = 10
        r.framesPerTransition = 10
        r.fps = 10
        r.easing = .linear
        r.base.clustering = nil
        r.trail = 0.4          // 4 frames
        return r
    }

    /// The trail's line batches in a frame's scene (the only lines: the map has no data lines).
    static func trailBatches(_ scene: Scene) -> [ShapeBatch] {
        scene.items.compactMap { if case .shapes(let b) = $0, b.kind == .line, b.paint.cap == .butt, b.strokeWidth == AnimationTrails.defaultWidth { return b } else { return nil } }
    }

    /// Frame 6 of the move: per point, four segments of ages 0–3 joining its positions at frames
    /// 2–6, faded 0.85 × (1 − age / 4), its newest end on the marker, the whole under the markers.
    @Test func segmentsJoinTheLastFramesPositions() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = try Self.request(in: dir)
        r.base.defaultBasemap = false
        let scenes = try AnimationRenderer.scenes(r)
        let (plan, scene) = scenes[6]
        let batches = Self.trailBatches(scene)
        var segments: [(x0: Double, y0: Double, x1: Double, y1: Double, alpha: Double)] = []
        for b in batches {
            for p in 0..<b.pathCount {
                let r0 = b.pathRingStart[p], v0 = b.ringStart[r0], v1 = b.ringStart[r0 + 1]
                #expect(v1 - v0 == 2)
                segments.append((b.coords[2 * v0], b.coords[2 * v0 + 1], b.coords[2 * v1 - 2], b.coords[2 * v1 - 1], b.stroke.a))
            }
        }
        #expect(segments.count == 8)
        let alphas = Set(segments.map { ($0.alpha * 1000).rounded() / 1000 })
        #expect(alphas == Set([0.85, 0.6375, 0.425, 0.2125].map { ($0 * 1000).rounded() / 1000 }))
        // The markers' positions in frames 2...6 (linear easing, no clusters): the trail's vertices.
        let markers = try #require(scene.markers.first)
        for point in 0..<2 {
            let key = plan.keys[plan.marks.markerPoint[point]]
            let path = (2...6).map { k -> (Double, Double) in
                let p = scenes[k].plan, m = p.marks.markerPoint.firstIndex { p.keys[$0] == key }!
                return (p.marks.markerX[m], p.marks.markerY[m])
            }
            for age in 0..<4 {
                let a = path[3 - age], b = path[4 - age]
                #expect(segments.contains { abs($0.x0 - a.0) < 0.01 && abs($0.y0 - a.1) < 0.01 && abs($0.x1 - b.0) < 0.01 && abs($0.y1 - b.1) < 0.01 },
                        "point \(key) age \(age)")
            }
            #expect(markers.x.contains { abs($0 - path[4].0) < 0.01 })
        }
        // Under the markers.
        let lineAt = try #require(scene.items.lastIndex { if case .shapes = $0 { return true } else { return false } })
        let markerAt = try #require(scene.items.firstIndex { if case .markers = $0 { return true } else { return false } })
        #expect(lineAt < markerAt)
        // Frame 0 has no past; without --trail no frame has a trail.
        #expect(Self.trailBatches(scenes[0].scene).isEmpty)
        r.trail = nil
        #expect(Self.trailBatches(try AnimationRenderer.scenes(r)[6].scene).isEmpty)
    }

    /// A trail follows what the reader saw: Ada starts inside a bubble with Bea (25 px apart at
    /// this zoom) and moves east out of it. Every segment of every frame joins the positions the
    /// two frames showed its point at (`FramePlan.shownX/shownY`: the bubble's centre while she
    /// was in it, the marker after), so her trail starts at the bubble, about 12 px from where
    /// the data had her, not at her hidden data position; and its newest end is her marker.
    @Test func trailsFollowTheShownPositionOutOfABubble() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try AnimationTestData.writeCSV([
            ["1,Ada,45.0,9.0", "2,Bea,45.0,9.4", "3,Cy,44.0,13.0"],
            ["1,Ada,45.0,12.0", "2,Bea,45.0,9.4", "3,Cy,44.0,13.0"],
            ["1,Ada,45.0,12.0", "2,Bea,45.0,9.4", "3,Cy,44.0,13.0"],
        ], to: dir)
        var r = AnimationRequest(source: .keyframes(paths), output: .inMemory(format: .png))
        r.base.width = 320
        r.base.height = 240
        r.base.view = .center(lat: 45, lon: 11, zoom: 5.5)
        r.base.style.marker.shape = .circle
        r.base.style.marker.size = 10
        r.base.defaultBasemap = false
        r.framesPerTransition = 10
        r.fps = 10
        r.easing = .linear
        r.trail = 0.4          // 4 frames
        let scenes = try AnimationRenderer.scenes(r)
        func index(_ plan: FramePlan, key: Int) -> Int? { plan.keys.firstIndex(of: key) }
        var segments = 0
        for (k, frame) in scenes.enumerated() {
            for s in frame.plan.trail {
                let newer = scenes[k - s.age].plan, older = scenes[k - s.age - 1].plan
                let b = try #require(index(newer, key: s.key)), a = try #require(index(older, key: s.key))
                #expect(s.x1 == newer.shownX[b] && s.y1 == newer.shownY[b], "frame \(k) key \(s.key) age \(s.age)")
                #expect(abs(s.x0 - older.shownX[a]).truncatingRemainder(dividingBy: 1) == 0 && s.y0 == older.shownY[a],
                        "frame \(k) key \(s.key) age \(s.age)")
                segments += 1
            }
        }
        #expect(segments > 0)
        // Ada: in the bubble in frame 0, then drawn; some frame trails her from the bubble's centre.
        let first = scenes[0].plan
        let ada = try #require(first.points.ids.firstIndex(of: .number(1)))
        let key = first.keys[ada]
        #expect(first.group[ada] >= 0, "Ada starts inside a bubble")
        let bubble = first.viewport.pixel(x: first.shownX[ada], y: first.shownY[ada])
        let data = first.viewport.pixel(x: WebMercator.x(lon: 9.0), y: WebMercator.y(lat: 45.0))
        #expect(hypot(bubble.x - data.x, bubble.y - data.y) > 5, "the bubble is drawn away from Ada's own position")
        // Some segment of Ada's starts where a frame showed her inside a bubble: the bubble's
        // centre, more than 5 px from where the data had her then (linear easing: 9°E + 3° × j / 10).
        var fromBubble = 0
        for frame in scenes {
            for s in frame.plan.trail where s.key == key {
                let j = frame.plan.index - s.age - 1, older = scenes[j].plan
                guard let a = index(older, key: key), older.group[a] >= 0 else { continue }
                let shown = older.viewport.pixel(x: s.x0, y: s.y0)
                let data = older.viewport.pixel(x: WebMercator.x(lon: 9.0 + 3.0 * Double(min(j, 10)) / 10), y: WebMercator.y(lat: 45.0))
                if hypot(shown.x - data.x, shown.y - data.y) > 5 { fromBubble += 1 }
            }
        }
        #expect(fromBubble > 0, "a trail of Ada starts at a bubble she was in, away from her data position")
        // Her newest segment ends on her marker.
        let later = scenes[6].plan
        let m = try #require(later.marks.markerPoint.firstIndex { later.keys[$0] == key })
        let newest = try #require(later.trail.first { $0.key == key && $0.age == 0 })
        let end = later.viewport.pixel(x: newest.x1, y: newest.y1)
        #expect(abs(end.x - later.marks.markerX[m]) < 1e-6 && abs(end.y - later.marks.markerY[m]) < 1e-6)
    }

    /// Keyframe 2 after a pause longer than the trail: no segment has length, so the frame is the
    /// still map of keyframe 2 byte for byte. Keyframe 1, right after the move: the still map with
    /// its trail, every pixel farther than the line's half width (and a pixel of anti-aliasing)
    /// from the trail's segments equal to the still map's, and the trail's own pixels drawn.
    @Test func framesAtRestAreTheStillMapWithItsTrail() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Self.request(in: dir)
        var frames: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, d in if k % 10 == 0 { frames[k] = d } })
        let scenes = try AnimationRenderer.scenes(r)
        guard case .keyframes(let paths) = r.source else { return }
        func still(_ j: Int) throws -> Data {
            var s = r.base
            s.inputs = [paths[j]]
            return try MapRenderer.render(s).data
        }
        #expect(frames[20] == (try still(2)), "keyframe 2 after a pause is the still map")
        #expect(Self.trailBatches(scenes[20].scene).isEmpty)

        let frame = try PNGCodec.decode(data: try #require(frames[10])), map = try PNGCodec.decode(data: try still(1))
        var segments: [(Double, Double, Double, Double)] = []
        for b in Self.trailBatches(scenes[10].scene) {
            for p in 0..<b.pathCount {
                let v0 = b.ringStart[b.pathRingStart[p]]
                segments.append((b.coords[2 * v0], b.coords[2 * v0 + 1], b.coords[2 * v0 + 2], b.coords[2 * v0 + 3]))
            }
        }
        #expect(segments.count == 8)
        func distance(_ px: Double, _ py: Double, _ s: (Double, Double, Double, Double)) -> Double {
            let dx = s.2 - s.0, dy = s.3 - s.1, len2 = dx * dx + dy * dy
            let t = len2 > 0 ? min(max(((px - s.0) * dx + (py - s.1) * dy) / len2, 0), 1) : 0
            return hypot(px - s.0 - t * dx, py - s.1 - t * dy)
        }
        var differing = 0, outside = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let i = (y * frame.width + x) * 4
                guard frame.pixels[i..<(i + 4)] != map.pixels[i..<(i + 4)] else { continue }
                differing += 1
                let near = segments.contains { distance(Double(x) + 0.5, Double(y) + 0.5, $0) <= AnimationTrails.defaultWidth / 2 + 1.5 }
                if !near { outside += 1 }
            }
        }
        #expect(differing > 100, "the trail is drawn (\(differing) pixels)")
        #expect(outside == 0, "\(outside) pixels away from the trail differ from the still map")
    }

    /// The animated SVG draws the same segments (a `<line>` per point and age whose ends follow
    /// the frames): in Chromium, paused at frame times, it matches the PNG frames, mid-move (with
    /// a full trail, and one growing from the start) and at rest. Bound as the spread legs' test
    /// (0.2 %): lines and circles only, no text, so edges are all that differ (measured 0–0.08 %).
    @Test func animatedSVGTrailsInChromiumMatchThePNGFrames() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let svgPath = dir.appendingPathComponent("anim.svg").path
        let r = try Self.request(in: dir, output: .animatedSVG(svgPath))
        let (svg, frames) = try AnimationTestData.animatedSVGAndPNGFrames(r, svgPath: svgPath)
        #expect(svg.components(separatedBy: "<line").count - 1 == 8)   // 2 points × 4 ages
        // Frame 20, the last, is where the loop restarts (the browser shows frame 0 there): 19 is at rest too.
        for (k, fraction) in try AnimatedSVGBrowserTests.browserAgainstFrames(r, svgPath: svgPath, checked: [2, 6, 10, 13, 19], dir: dir,
                                                                                bound: 0.002, name: "browser-trail-frame",
                                                                                rendered: (svg, frames)) {
            #expect(fraction <= 0.002, "frame \(k): \(fraction * 100) % of the pixels differ")
        }
        // The comparison sees the trails: PNG frames drawn without them differ from the SVG's.
        var plain = r
        plain.trail = nil
        plain.output = .inMemory(format: .png)
        var untrailed: [Int: Data] = [:]
        try AnimationRenderer.render(plain, onFrame: { k, d in untrailed[k] = d })
        for (k, fraction) in try AnimatedSVGBrowserTests.browserAgainstFrames(r, svgPath: svgPath, checked: [6], dir: dir,
                                                                                bound: 1, name: "browser-untrailed-frame",
                                                                                rendered: (svg, untrailed)) {
            #expect(fraction > 0.002, "frame \(k): the trail's pixels (\(fraction * 100) %) should show")
        }
    }

    /// Looked at (__Snapshots__/TrailTests/storm-trail.png): cyclone Catarina (samples/tracks.csv)
    /// off Brazil's coast in frame 30 of 36, its red pin trailing a line back east along its track
    /// that fades from red to nothing over the last 1.5 s (12 frames) of the animation.
    @Test func stormFrameWithTrail() throws {
        var r = AnimationRequest(source: .tracks(TestPaths.repoFile("samples/tracks.csv"), TrackColumns()), output: .inMemory(format: .png))
        r.start = TrackTime.parse("2004-03-19T18:00:00Z")
        r.end = TrackTime.parse("2004-03-28T18:00:00Z")
        r.frameCount = 36
        r.fps = 8
        r.trail = 1.5
        r.base.basemaps = [TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")]
        r.base.layout.labelField = "id"
        r.base.width = 480
        r.base.height = 320
        var frame: Data?
        try AnimationRenderer.render(r, onFrame: { k, d in if k == 29 { frame = d } })
        let scene = try AnimationRenderer.scenes(r)[29].scene
        #expect(Self.trailBatches(scene).count >= 10)
        try Snapshot.assertMatches(try #require(frame), named: "storm-trail", format: .png)
    }
}
