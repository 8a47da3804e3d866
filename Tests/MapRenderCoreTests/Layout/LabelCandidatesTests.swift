import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Plain labelling's candidates: which drawn markers have a text is read in row order, and a
/// point's text only when its label is tried. Both must agree with the text itself.
@Suite struct LabelCandidatesTests {
    @Test func hasDisplayTextIsANonEmptyDisplayText() {
        let values: [PropertyValue] = [
            .missing, .null, .bool(true), .bool(false), .number(0), .number(-0.0), .number(.nan), .number(.infinity),
            .number(1e20), .number(-3.5), .string(""), .string(" "), .string("Zürich"), .string("東京"),
            .json(""), .json("[]"), .json("{\"a\":1}"),
        ]
        for v in values {
            #expect(v.hasDisplayText == !(v.displayText ?? "").isEmpty, "\(v)")
        }
    }

    /// Points with every kind of label value (missing, empty, numbers, long and short strings),
    /// shuffled by a seeded generator; the drawn order (north to south) is not the row order.
    func context(count: Int, seed: UInt64) -> (LabelLayout.Context, MarkerBatch, [Int]) {
        var rng = SeededRandom(seed: seed)
        var p = PointSet()
        let name = p.properties.addColumn("name")
        for i in 0..<count {
            p.lon.append(Double(rng.next() % 20_000) / 1000 - 10)
            p.lat.append(Double(rng.next() % 20_000) / 1000 - 10)
            let value: PropertyValue
            switch rng.next() % 6 {
            case 0: value = .missing
            case 1: value = .string("")
            case 2: value = .number(Double(i) / 4)
            case 3: value = .string(String(repeating: "é", count: 150 + i % 100))   // cut at 200 characters
            case 4: value = .null
            default: value = .string("place \(i)")
            }
            p.properties.appendRow([(name, value)])
        }
        let data = ProjectedPoints(points: p, style: .default)
        let v = ViewFitter.fit(xs: data.x, ys: data.y, width: 600, height: 400, extent: data.styles.extent,
                               padding: EdgeInsets(all: 10), maxZoom: 16)
        let plan = MarkPlanner.plan(viewport: v, data: data, clusters: nil, leaves: { _ in nil }, spread: SpreadOptions())
        let (batch, drawn) = MapLayout.markers(viewport: v, data: data, plan: plan)
        let label = Style.default.label
        let c = LabelLayout.Context(data: data, column: name, rank: nil, style: label,
                                    font: FontSpec(family: label.font, size: label.size, weight: label.weight),
                                    viewport: v, obstacles: [], allowOverlap: false)
        return (c, batch, drawn)
    }

    @Test(arguments: [1, 2, 3])
    func candidatesAreTheDrawnMarkersWithATextInDrawOrder(seed: UInt64) {
        let (c, batch, drawn) = context(count: 3000, seed: seed)
        #expect(drawn != drawn.sorted(), "the drawn order differs from the row order")
        // Many rows (read in row order) and a few (read one by one) agree with the text.
        #expect(c.haveText(drawn) == drawn.map { c.text($0) != nil })
        let few = Array(drawn.prefix(drawn.count / 8))
        #expect(c.haveText(few) == few.map { c.text($0) != nil })

        let candidates = LabelLayout.PlainCandidates(drawn: drawn, batch: batch, bubbles: [], context: c, skip: [])
        let expected = drawn.filter { c.text($0) != nil }
        #expect(candidates.owners == expected)
        #expect(candidates.labels.count == expected.count)
        for (j, owner) in candidates.owners.enumerated() {
            #expect(candidates.texts(j) == [c.text(owner)!])
        }
        // Skipped points are left out, the others kept in order.
        let skip = Set(expected.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
        let kept = LabelLayout.PlainCandidates(drawn: drawn, batch: batch, bubbles: [], context: c, skip: skip)
        #expect(kept.owners == expected.filter { !skip.contains($0) })
    }
}
