import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Issue 47: a label is dropped only for labels of equal or higher priority, or for fixed marks.
/// Checked on generated places against a brute-force collision test of its own (every pair of
/// boxes), not the placer's index: every side of every dropped label must be blocked by the image
/// edge, a fixed mark (a pin, a spread leg, a bubble) or a placed label ranking at least as high;
/// a name set away with a leader line (`LeaderLabel`) blocks with its box and its leader, and every
/// dropped label ranked above the last name so set has every leader place blocked the same way.
@Suite struct LabelPriorityTests {
    struct Case: CustomStringConvertible, Sendable {
        var seed: UInt64, marker: MarkerShape, size: Double, ties: Bool
        var description: String { "seed \(seed) \(marker) \(size)\(ties ? " ties" : "")" }
    }

    static let cases: [Case] = [
        Case(seed: 1, marker: .circle, size: 4, ties: false), Case(seed: 2, marker: .circle, size: 4, ties: false),
        Case(seed: 3, marker: .circle, size: 3, ties: false), Case(seed: 4, marker: .pin, size: 20, ties: false),
        Case(seed: 5, marker: .pin, size: 20, ties: true), Case(seed: 6, marker: .circle, size: 12, ties: true),
    ]

    /// The placed and dropped labels of one generated map, and what the check needs of it.
    struct Outcome {
        var violations: [String] = []
        var placed = 0, dropped = 0, checkedBubbles = 0
        /// Names set away with a leader line, and dropped labels whose leader places were checked.
        var leadered = 0, checkedLeaderPlaces = 0
    }

    static func run(_ c: Case, padding: Double = 2) -> Outcome {
        let g = GeneratedPlaces.make(seed: c.seed, count: 700, stacks: 12, ties: c.ties)
        var p = PointSet()
        let nameCol = p.properties.addColumn("name"), popCol = p.properties.addColumn("pop")
        for i in g.lon.indices {
            p.lon.append(g.lon[i]); p.lat.append(g.lat[i])
            p.properties.appendRow([(nameCol, .string(g.name[i])), (popCol, .number(g.population[i]))])
        }
        var style = Style.default
        style.marker.shape = c.marker
        style.marker.size = c.size
        style.label.textPadding = padding
        let data = ProjectedPoints(points: p, style: style)
        let v = ViewFitter.fit(xs: data.x, ys: data.y, width: 500, height: 400, extent: data.styles.extent,
                               padding: EdgeInsets(all: 10), maxZoom: 16)
        var spread = SpreadOptions()
        spread.maximum = 4   // stacks of 5 or more are bubbles, named after their largest place
        let plan = MarkPlanner.plan(viewport: v, data: data, clusters: nil, leaves: { _ in nil }, spread: spread,
                                    bubbles: style.cluster, naming: (rank: (column: popCol, smallerFirst: false), label: nameCol))
        var options = LayoutOptions()
        options.labelField = "name"
        options.labelPriority = "pop"
        let measurer = FakeTextMeasurer()
        let (scene, _) = MapLayout.layout(viewport: v, scale: 1, style: style, data: data, plan: plan, basemaps: [],
                                          options: options, measurer: measurer)
        // What the placer was given, rebuilt: markers in draw order, spread legs, bubbles as drawn.
        let (batch, drawn) = MapLayout.markers(viewport: v, data: data, plan: plan)
        let soft = batch.symbols.map(LabelLayout.isSoft)
        let anySoft = (0..<batch.count).contains { soft[Int(batch.symbol[$0])] }
        let hard = (0..<batch.count).filter { !soft[Int(batch.symbol[$0])] }.map(batch.box(at:)) + MapLayout.legBoxes(plan)
        let discs = scene.bubbles.map { (x: $0.x, y: $0.y, r: $0.radius + style.cluster.strokeWidth / 2) }
        let halo = style.label.haloWidth, reserve = anySoft ? halo / 2 : halo
        func grow(_ r: Rect, _ d: Double) -> Rect { Rect(x: r.x - d, y: r.y - d, width: r.width + 2 * d, height: r.height + 2 * d) }
        func hitsDisc(_ r: Rect) -> Bool {
            discs.contains { d in
                let cx = min(max(d.x, r.x), r.maxX), cy = min(max(d.y, r.y), r.maxY)
                return (cx - d.x) * (cx - d.x) + (cy - d.y) * (cy - d.y) < d.r * d.r
            }
        }
        // Placed labels: their box with the reserve and half the padding, and their priority (a
        // bubble's: its representative's population); a leader's squares as they are.
        var placed: [(box: Rect, priority: Double)] = []
        // On a dense dot map, named places' dots: no name ranked below covers one.
        var namedDots: [(box: Rect, priority: Double)] = []
        var named = Set<Int>()
        var lowestLeadered = Double.infinity
        for l in scene.labels {
            let box = grow(Rect(x: l.x, y: l.y, width: l.width, height: l.height), reserve + padding / 2)
            if let o = l.owner {
                placed.append((box, g.population[o])); named.insert(o)
                if let line = l.leader {
                    placed += LeaderLabel.boxes(along: line).map { ($0, g.population[o]) }
                    lowestLeadered = min(lowestLeadered, g.population[o])
                }
            } else if let b = l.bubble, let rep = plan.bubbles[b].representative { placed.append((box, g.population[rep])) }
        }
        if anySoft {
            for (k, i) in drawn.enumerated() where named.contains(i) { namedDots.append((batch.box(at: k), g.population[i])) }
        }
        let image = Rect(x: 0, y: 0, width: v.width, height: v.height)
        // The leading places (the only ones a name is set away for with a leader): in priority
        // order, each dot at least `LabelLayout.leadingSpacing` from every leading one before it.
        var leading = Set<Int>(), leadingDots: [(Double, Double)] = []
        let ranked = drawn.indices.filter { g.name[drawn[$0]].isEmpty == false }
            .sorted { g.population[drawn[$0]] != g.population[drawn[$1]] ? g.population[drawn[$0]] > g.population[drawn[$1]] : $0 < $1 }
        for k in ranked.prefix(2000) where leadingDots.count < 200 {
            let a = batch.labelAnchor(at: k), x = a.x + a.width / 2, y = a.y + a.height / 2
            let d = LabelLayout.leadingSpacing
            if leadingDots.allSatisfy({ ($0.0 - x) * ($0.0 - x) + ($0.1 - y) * ($0.1 - y) >= d * d }) {
                leadingDots.append((x, y)); leading.insert(drawn[k])
            }
        }
        var out = Outcome()
        out.placed = scene.labels.count
        out.leadered = scene.labels.filter { $0.leader != nil }.count
        out.checkedBubbles = scene.labels.filter { $0.bubble != nil }.count
        // How many labels ranked strictly higher were placed: the first 40 keep the full size.
        let priorities = scene.labels.compactMap { l in l.owner.map { g.population[$0] } ?? l.bubble.flatMap { plan.bubbles[$0].representative }.map { g.population[$0] } }
            .sorted(by: >)
        for (k, i) in drawn.enumerated() where !named.contains(i) {
            let a = batch.labelAnchor(at: k)
            guard image.contains(Rect(x: a.x + a.width / 2, y: a.y + a.height / 2, width: 0, height: 0)) else { continue }
            out.dropped += 1
            let pop = g.population[i]
            // (A dense dot map sets every name in the smaller type.)
            let fontSize = anySoft ? style.label.size * 5 / 6 : style.label.size
            let text = measurer.measure(g.name[i], font: FontSpec(family: style.label.font, size: fontSize, weight: .normal), maxWidth: nil)
            let label = LabelPlacer.Label(markBox: batch.box(at: k), anchorBox: a,
                                          size: TextSize(width: text.width + 2 * reserve, height: text.height + 2 * reserve), priority: pop)
            // Its eight sides, and on a dense dot map the boxes halfway between them.
            let boxes = LabelSide.allCases.map { (LabelPlacer.box($0, for: label, gap: style.label.offset), $0) }
                + (anySoft ? LabelLayout.halfwayBoxes(for: label, gap: style.label.offset).map { ($0.box, $0.side) } : [])
            for (b, side) in boxes {
                // Fixed marks are judged at the pixel (the placer draws them into a raster of whole
                // pixels): one within a pixel of the box blocks it.
                if !image.contains(b) || hard.contains(where: { grow($0, 1).intersects(b) }) || hitsDisc(grow(b, 1)) { continue }
                // A placed label within the padding of it, ranking at least as high.
                let near = placed.filter { $0.box.intersects(grow(b, padding / 2)) }
                if near.contains(where: { $0.priority >= pop }) { continue }
                if namedDots.contains(where: { $0.priority >= pop && $0.box.intersects(b) }) { continue }
                // (or it would lie nearer a named dot ranked at least as high than its own)
                if namedDots.contains(where: { $0.priority >= pop && LabelLayout.distance(b, $0.box.midX, $0.box.midY)
                    < LabelLayout.distance(b, label.markBox.midX, label.markBox.midY) }) { continue }
                out.violations.append("\(g.name[i]) (pop \(Int(pop))) dropped; its \(side) side is "
                                      + (near.isEmpty ? "free" : "taken by labels ranked \(near.map { Int($0.priority) }) only"))
            }
            // Ranked above the last name set with a leader: its leader places were tried (in the
            // smaller type, whose box lies inside the full type's at each place), and each is off
            // the image, on a fixed mark, or taken by a name or leader ranked at least as high.
            guard anySoft, pop > lowestLeadered, leading.contains(i) else { continue }
            let small = measurer.measure(g.name[i], font: FontSpec(family: style.label.font, size: style.label.size * 5 / 6, weight: .normal), maxWidth: nil)
            let size = TextSize(width: small.width + 2 * reserve, height: small.height + 2 * reserve)
            for cand in LeaderLabel.candidates(around: (a.x + a.width / 2, a.y + a.height / 2),
                                               radius: max(label.markBox.width, label.markBox.height) / 2, size: size) {
                let line = cand.leaderBoxes, box = grow(cand.box, padding / 2)
                if !image.contains(cand.box) || !image.contains(cand.leader.bounds) { continue }
                if hard.contains(where: { h in grow(h, 1).intersects(cand.box) || line.contains { grow(h, 1).intersects($0) } })
                    || hitsDisc(grow(cand.box, 1)) || line.contains(where: { hitsDisc(grow($0, 1)) }) { continue }
                out.checkedLeaderPlaces += 1
                let near = placed.filter { p in p.box.intersects(box) || line.contains { $0.intersects(p.box) } }
                if near.contains(where: { $0.priority >= pop }) { continue }
                if namedDots.contains(where: { $0.priority >= pop && $0.box.intersects(cand.box) }) { continue }
                out.violations.append("\(g.name[i]) (pop \(Int(pop))) dropped; its leader place \(cand.ring)/\(cand.direction) is "
                                      + (near.isEmpty ? "free" : "taken by labels ranked \(near.map { Int($0.priority) }) only"))
            }
        }
        return out
    }

    @Test(arguments: cases) func droppedLabelsYieldOnlyToHigherRanksOrFixedMarks(_ c: Case) {
        let out = Self.run(c)
        // The map is crowded: many labels placed, many dropped, bubbles named.
        #expect(out.placed >= 25 && out.dropped >= 100, "\(c): \(out.placed) placed, \(out.dropped) dropped")
        #expect(out.violations.isEmpty, "\(c): \(out.violations.count) violations, first: \(out.violations.prefix(3))")
    }

    /// The generated dot maps set names away with leader lines and drop names ranked above the
    /// last so set, so the check covers leaders.
    @Test func theGeneratedMapsHaveLeaders() {
        let outs = Self.cases.map { Self.run($0) }
        print("leadered names per case: \(outs.map(\.leadered)); leader places checked: \(outs.map(\.checkedLeaderPlaces))")
        #expect(outs.map(\.leadered).reduce(0, +) > 0)
        #expect(outs.map(\.checkedLeaderPlaces).reduce(0, +) > 0)
    }

    /// The generated maps have bubble labels in them, so the check covers bubbles against points.
    @Test func theGeneratedMapsNameBubbles() {
        #expect(Self.cases.map { Self.run($0).checkedBubbles }.reduce(0, +) > 0)
    }
}
