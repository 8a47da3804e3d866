import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// A label never changes side round its mark between keyframes (issue 47: "Barcelona" jumped
/// to another side mid-transition): from frame to frame a label keeps its side, or is left out
/// (opacity 0) in between.
@Suite struct AnimationLabelSideTests {
    /// The 300 most populous places of Europe (GeoNames, `world_cities_15000.csv`), and a second
    /// state: every tenth deleted, every third moved 2.5° east and 1.5° south, five inserted.
    static func europeKeyframes(in dir: URL) throws -> [String] {
        let loaded = try PointReader.read(path: TestPaths.shared("world_cities_15000.csv"), options: InputOptions())
        let p = loaded.points
        var rows: [(name: String, lat: Double, lon: Double, pop: Double, id: String)] = []
        for i in 0..<p.count where (35...70).contains(p.lat[i]) && (-10...40).contains(p.lon[i]) {
            rows.append((p.properties.value("name", row: i).displayText ?? "", p.lat[i], p.lon[i],
                         p.properties.value("population", row: i).numberValue ?? 0, p.properties.value("id", row: i).displayText ?? "\(i)"))
        }
        rows.sort { $0.pop != $1.pop ? $0.pop > $1.pop : $0.id < $1.id }
        let a = Array(rows.prefix(300))
        func line(_ r: (name: String, lat: Double, lon: Double, pop: Double, id: String)) -> String {
            "\(r.id),\"\(r.name.replacingOccurrences(of: "\"", with: "\"\""))\",\(r.lat),\(r.lon),\(Int(r.pop))"
        }
        var b: [String] = []
        for (k, r) in a.enumerated() where k % 10 != 9 {
            b.append(line(k % 3 == 0 ? (r.name, r.lat - 1.5, r.lon + 2.5, r.pop, r.id) : r))
        }
        for k in 0..<5 { b.append("\(900_000 + k),New \(k),\(40 + 4 * k),\(-5 + 8 * k),1000") }
        return try [a.map(line), b].enumerated().map { k, rows in
            let url = dir.appendingPathComponent("europe\(k).csv")
            try ("id,name,lat,lon,population\n" + rows.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
    }

    /// Which side of its anchor a label lies on: (-1, 0, 1) across and down, from the label's
    /// centre against the anchor, each 0 within half the label's width (height) of it (a label
    /// above or below is centred across, one right or left centred down; a bubble's name may slide
    /// by a third of its size along its side).
    static func side(_ box: Rect, anchor: (x: Double, y: Double)) -> (Int, Int) {
        let dx = box.x + box.width / 2 - anchor.x, dy = box.y + box.height / 2 - anchor.y
        func sign(_ d: Double, _ half: Double) -> Int { abs(d) <= half ? 0 : (d > 0 ? 1 : -1) }
        return (sign(dx, box.width / 2), sign(dy, box.height / 2))
    }

    /// Every label of every frame by identity (p: the key of the point it names; b: the key of
    /// the point its bubble is named after), with its side and opacity.
    static func labels(_ frame: (plan: FramePlan, scene: Scene), style: Style) -> [String: (side: (Int, Int), opacity: Double, text: String)] {
        let plan = frame.plan
        var marks = plan.marks
        BubbleSpacing.apply(to: &marks, style: style.cluster)   // where the layout draws the bubbles
        var marker: [Int: Int] = [:]
        for (m, i) in marks.markerPoint.enumerated() { marker[i] = m }
        var out: [String: (side: (Int, Int), opacity: Double, text: String)] = [:]
        for l in frame.scene.labels {
            if let owner = l.owner, let m = marker[owner] {
                out["p\(plan.keys[owner])"] = (side(l.box, anchor: (marks.markerX[m], marks.markerY[m])), l.opacity, l.text)
            } else if let b = l.bubble, let rep = marks.bubbles[b].representative {
                out["b\(plan.keys[rep])"] = (side(l.box, anchor: (marks.bubbles[b].x, marks.bubbles[b].y)), l.opacity, l.text)
            }
        }
        return out
    }

    @Test func aLabelKeepsItsSideOrIsLeftOutBetweenKeyframes() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = AnimationRequest(source: .keyframes(try Self.europeKeyframes(in: dir)), output: .inMemory(format: .png))
        r.base.width = 900
        r.base.height = 700
        r.base.layout.labelField = "name"
        // Circles: a label's anchor is the marker's centre at any size (a fading pin's head moves).
        r.base.style.marker.shape = .circle
        r.base.style.marker.size = 8
        r.framesPerTransition = 10
        let frames = try AnimationRenderer.scenes(r)
        #expect(frames.count == 11)
        let labels = frames.map { Self.labels($0, style: r.base.style) }
        var jumps: [String] = [], kept = 0, faded = 0
        for k in 1..<frames.count {
            for (id, now) in labels[k] {
                guard let before = labels[k - 1][id], before.opacity > 0, now.opacity > 0 else { continue }
                if before.side != now.side {
                    jumps.append("\(now.text) frame \(k): \(before.side) -> \(now.side)")
                } else {
                    kept += 1
                }
            }
        }
        // Labels whose side differs at the two keyframes: each fades out and in.
        for (id, first) in labels[0] {
            guard let last = labels[10][id], first.side != last.side else { continue }
            faded += 1
            #expect(labels[5][id] == nil, "\(first.text) is drawn in the middle frame")
        }
        #expect(jumps.isEmpty, "\(jumps.count) labels jump: \(jumps.prefix(10))")
        #expect(kept > 100, "kept \(kept), faded \(faded)")
        print("AnimationLabelSideTests: \(kept) label steps kept their side, \(faded) labels changed side between the keyframes by fading, \(jumps.count) jumps")
    }
}

/// The keyframe a transition looks ahead to (`ClusterContinuity.atRest`, planned without the
/// frames before) lays out as the frame at rest itself does, by the frames in order: the same
/// labels in the same places.
@Suite struct RestLookaheadTests {
    @Test func aKeyframePlannedAheadIsTheFrameAtRest() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = AnimationRequest(source: .keyframes(try AnimationLabelSideTests.europeKeyframes(in: dir)), output: .inMemory(format: .png))
        r.base.width = 900
        r.base.height = 700
        r.base.layout.labelField = "name"
        r.framesPerTransition = 10
        let frames = try AnimationRenderer.scenes(r)
        let session = try AnimationRenderer.Session(r)
        var compared = 0
        for (plan, scene) in frames where plan.atRest {
            let ahead = ClusterContinuity.atRest(RestFrame.make(plan.index, source: session.source, views: session.views,
                                                                timeline: session.timeline, base: r.base))
            let laid = session.drawing.layout(ahead, measurer: PangoText()).scene
            #expect(laid.labels == scene.labels, "frame \(plan.index)")
            #expect(laid.bubbles == scene.bubbles, "frame \(plan.index)")
            compared += scene.labels.count
        }
        #expect(compared > 20, "\(compared) labels compared")
    }
}
