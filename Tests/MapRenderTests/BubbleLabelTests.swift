import TestSupport
import Foundation
import Testing
@testable import MapRenderCore
@testable import MapRender

/// Issue 13: a bubble's name ("Mumbai +4145") sits unambiguously beside its own bubble, checked on
/// the drawn Scene's geometry, without pixels.
@Suite struct BubbleLabelTests {
    /// How far a box lies from a bubble's edge (0 when they touch or overlap).
    static func gap(_ b: BubbleBatch.Bubble, _ box: Rect) -> Double {
        let nx = min(max(b.x, box.x), box.maxX), ny = min(max(b.y, box.y), box.maxY)
        return max(0, hypot(b.x - nx, b.y - ny) - b.radius)
    }

    /// For every "Name +N" label: the bubble nearest to the label box holds N + 1 points, touches
    /// the label (within the label gap plus halo and outline), and, unless the label is centred on
    /// one side of it, is nearer to the label's centre than any other bubble. Returns the labels
    /// checked and the failures, described.
    static func misplacedBubbleLabels(_ scene: Scene) -> (checked: Int, failures: [String]) {
        let bubbles = scene.bubbles
        var checked = 0
        var failures: [String] = []
        for label in scene.labels {
            let parts = label.text.components(separatedBy: " +")
            guard parts.count == 2, let others = Int(parts[1]), !bubbles.isEmpty else { continue }
            checked += 1
            let box = label.box
            let cx = box.x + box.width / 2, cy = box.y + box.height / 2
            let byBox = bubbles.indices.min { gap(bubbles[$0], box) < gap(bubbles[$1], box) }!
            let byCentre = bubbles.indices.min {
                hypot(bubbles[$0].x - cx, bubbles[$0].y - cy) - bubbles[$0].radius
                    < hypot(bubbles[$1].x - cx, bubbles[$1].y - cy) - bubbles[$1].radius
            }!
            let own = bubbles[byBox]
            let tied = bubbles.indices.contains { $0 != byBox && gap(bubbles[$0], box) <= gap(own, box) }
            if own.count != others + 1 || tied {
                failures.append("\(label.text): nearest bubble holds \(own.count)\(tied ? " (tied)" : "")")
            } else if abs(cx - own.x) > 0.5 && abs(cy - own.y) > 0.5 && bubbles[byCentre].count != others + 1 {
                failures.append("\(label.text): its centre is nearest a bubble of \(bubbles[byCentre].count)")
            } else if gap(own, box) > 3 + 2 * label.haloWidth + 2 {
                failures.append("\(label.text): \(gap(own, box)) px from its bubble")
            }
        }
        return (checked, failures)
    }

    /// Clustered world cities (the map in the issue, where "Mumbai +4145" sat beside the 3.4k
    /// bubble and "Karachi +3438" beside the 4.1k one).
    @Test func worldCitiesBubbleNamesSitBesideTheirBubbles() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.layout.labelField = "name"
        let result = try MapRenderer.render(r)
        let (checked, failures) = Self.misplacedBubbleLabels(result.scene)
        #expect(checked >= 25)
        #expect(failures.isEmpty, "\(failures)")
        // The 10 largest bubbles are still named, with their counts.
        let texts = result.scene.labels.map(\.text)
        for b in result.scene.bubbles.sorted(by: { $0.count > $1.count }).prefix(10) {
            #expect(texts.contains { $0.hasSuffix(" +\(b.count - 1)") }, "bubble of \(b.count) is not named")
        }
    }

    /// Blobs of 20–400 named points, close together in a European-sized box, at two sizes and three
    /// seeds: neighbouring bubbles everywhere.
    @Test(arguments: [(UInt64(1), 800.0, 600.0), (2, 800.0, 600.0), (3, 640.0, 480.0), (4, 1024.0, 768.0)])
    func generatedBlobsBubbleNamesSitBesideTheirBubbles(seed: UInt64, width: Double, height: Double) throws {
        var rng = SeededRandom(seed: seed)
        func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        var csv = "name,lat,lon,population\n"
        for blob in 0..<40 {
            let lat = 38 + 20 * unit(), lon = -8 + 35 * unit(), spread = 0.2 + 1.5 * unit()
            let n = 20 + Int(rng.next() % 380)
            for k in 0..<n {
                csv += "B\(blob)-\(k),\(lat + spread * (unit() - 0.5)),\(lon + spread * (unit() - 0.5)),\(rng.next() % 1_000_000)\n"
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID()).csv")
        try Data(csv.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.width = width; r.height = height
        r.layout.labelField = "name"
        let result = try MapRenderer.render(r)
        let (checked, failures) = Self.misplacedBubbleLabels(result.scene)
        #expect(checked >= 5, "only \(checked) bubble labels of \(result.scene.bubbles.count) bubbles")
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The check fails on a label beside the wrong bubble.
    @Test func theCheckCanFail() {
        var scene = Scene(width: 200, height: 100, scale: 1, background: RGBA(1, 1, 1))
        let fill = RGBA(1, 0, 0)
        var batch = BubbleBatch(stroke: fill, strokeWidth: 1, opacity: 1, font: FontSpec(family: "sans", size: 10, weight: .normal), textColor: fill)
        batch.bubbles = [.init(x: 50, y: 50, radius: 20, fill: fill, count: 10, text: "10", textBox: Rect(x: 45, y: 45, width: 10, height: 10)),
                         .init(x: 150, y: 50, radius: 20, fill: fill, count: 20, text: "20", textBox: Rect(x: 145, y: 45, width: 10, height: 10))]
        scene.items.append(.bubbles(batch))
        func label(_ text: String, x: Double) -> SceneItem {
            .label(LabelMark(text: text, font: FontSpec(family: "sans", size: 10, weight: .normal), color: fill, halo: fill, haloWidth: 1,
                             x: x, y: 45, width: 20, height: 10))
        }
        scene.items.append(label("A +9", x: 73))    // right of the 10: its own
        #expect(Self.misplacedBubbleLabels(scene).failures.isEmpty)
        scene.items.append(label("B +9", x: 107))   // left of the 20: the wrong one
        #expect(Self.misplacedBubbleLabels(scene).failures.count == 1)
    }

    /// Without a ranking column, a bubble is named after the member nearest its centre when that
    /// lies under the bubble, else not at all (input order said "San Marino +5" for an Italian bubble).
    @Test func withoutARankingTheCentralMemberNamesTheBubble() {
        let props = PropertyTable()
        // Rows 0..3 at growing distances from the centre (0.5, 0.5); the bubble reaches 1.5 radii = 0.15.
        let x = [0.58, 0.53, 0.7, 0.505], y = [0.5, 0.5, 0.5, 0.5]
        let centre = BubbleNaming.Centre(x: 0.5, y: 0.5, reach: 0.15)   // radius 0.1
        #expect(BubbleNaming.representative(of: [0, 1, 2, 3], properties: props, rank: nil, near: centre, x: x, y: y) == 3)
        #expect(BubbleNaming.representative(of: [0, 1, 2], properties: props, rank: nil, near: centre, x: x, y: y) == 1)
        // Nobody under the bubble (radius 0.1): count only.
        #expect(BubbleNaming.representative(of: [2], properties: props, rank: nil, near: centre, x: x, y: y) == nil)
    }
}
