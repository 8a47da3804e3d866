import Testing
@testable import MapRenderCore

/// `DenseLabelPlan` on generated crowds of names: the placement it judges proposals by keeps the
/// priority rule, its quick re-decision equals deciding everything again, and its search is
/// deterministic and never worse than no plan.
@Suite struct DenseLabelPlanTests {
    /// A crowd of `count` names in a 300x200 px area, each with its 8 sides (12x60 px boxes
    /// about a 4 px dot) and, for every third, 8 leader places 30 px away.
    static func crowd(seed: UInt64, count: Int) -> [DenseLabelPlan.Entry] {
        var rng = SplitMix64(state: seed)
        func uniform(_ n: Double) -> Double { Double(rng.next() % 1_000_000) / 1_000_000 * n }
        return (0..<count).map { k in
            let x = uniform(300), y = uniform(200)
            let dot = Rect(x: x - 2, y: y - 2, width: 4, height: 4)
            let w = 30 + uniform(40), h = 14.0
            var places = LabelSide.allCases.map { side in
                DenseLabelPlan.Place(box: LabelLayout.padded(
                    LabelPlacer.box(side, for: LabelPlacer.Label(markBox: dot, anchorBox: dot, size: TextSize(width: w, height: h), priority: 0), gap: 3),
                    by: 1))
            }
            let sides = places.count
            if k % 3 == 0 {
                for u in LeaderLabel.directions {
                    let line = LeaderLine(x0: x + u.x * 3, y0: y + u.y * 3, x1: x + u.x * 30, y1: y + u.y * 30, width: 0.75)
                    let bx = line.x1 + (u.x > 0.1 ? 1 : u.x < -0.1 ? -1 - w : -w / 2)
                    let by = line.y1 + (u.y > 0.1 ? 1 : u.y < -0.1 ? -1 - h : -h / 2)
                    places.append(.init(box: LabelLayout.padded(Rect(x: bx, y: by, width: w, height: h), by: 1), leader: line))
                }
            }
            return .init(places: places, sides: sides, dot: dot, leading: k % 2 == 0)
        }
    }

    /// Whether place `q` (flat) of entry `i` is blocked by the earlier decisions.
    /// (Or, for a side, the name would lie nearer a named dot than its own; or its leader would
    /// cross a named leading place's dot.)
    static func blocked(_ plan: DenseLabelPlan, _ i: Int, _ q: Int, _ d: [Int]) -> Bool {
        let box = LabelLayout.padded(plan.flat[q].box, by: -1), own = plan.entries[i].dot
        let ownDistance = LabelLayout.distance(box, own.midX, own.midY)
        return (0..<i).contains { j in
            let dot = plan.entries[j].dot
            return d[j] >= 0 && (plan.flat[d[j]].meets(plan.flat[q]) || plan.flat[q].covers(dot, padding: 1)
                || (q < plan.leadersStart[i] && LabelLayout.distance(box, dot.midX, dot.midY) < ownDistance)
                || (plan.entries[j].leading && plan.flat[q].leader.map { DenseLabelPlan.Place.segment($0, hits: dot) } == true))
        }
    }

    /// The priority rule, by brute force over every pair (not through `before`): each dropped
    /// name has every place blocked by a name ranked above it, and no placed name meets one
    /// ranked above it; for random preferences on 6 crowds.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64]) func decodeKeepsThePriorityRule(_ seed: UInt64) {
        let plan = DenseLabelPlan(entries: Self.crowd(seed: seed, count: 120), padding: 1)
        var rng = SplitMix64(state: seed &* 7)
        for round in 0..<4 {
            let preferred = plan.entries.indices.map { i -> Int in
                round == 0 || rng.next() % 2 == 0 ? -1 : plan.start[i] + Int(rng.next() % UInt64(plan.end[i] - plan.start[i]))
            }
            let d = plan.decode(preferred)
            var dropped = 0
            for i in plan.entries.indices {
                if d[i] >= 0 {
                    #expect(!Self.blocked(plan, i, d[i], d), "entry \(i) placed over a higher-ranked name")
                    #expect((plan.start[i]..<plan.end[i]).contains(d[i]))
                } else {
                    dropped += 1
                    for q in plan.start[i]..<plan.end[i] {
                        #expect(Self.blocked(plan, i, q, d), "entry \(i) dropped with place \(q - plan.start[i]) free")
                    }
                }
            }
            #expect(dropped > 10, "the crowd is crowded")
        }
    }

    /// `redecode` after changing some preferences equals `decode` from scratch.
    @Test func redecodeEqualsDecode() {
        let plan = DenseLabelPlan(entries: Self.crowd(seed: 9, count: 150), padding: 1)
        var rng = SplitMix64(state: 99)
        var preferred = [Int](repeating: -1, count: plan.entries.count)
        var current = plan.decode(preferred)
        for _ in 0..<300 {
            var changed: [Int] = []
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let i = Int(rng.next() % UInt64(plan.entries.count))
                preferred[i] = plan.start[i] + Int(rng.next() % UInt64(plan.end[i] - plan.start[i]))
                changed.append(i)
            }
            var state = plan.empty
            for i in plan.entries.indices { plan.set(i, to: current[i], in: &state) }
            let undo = plan.redecode(preferred, state: &state, changed: changed)
            let full = plan.decode(preferred)
            #expect(state.decisions == full)
            #expect(Set(undo.map(\.entry)) == Set(plan.entries.indices.filter { current[$0] != full[$0] }))
            #expect(undo.allSatisfy { current[$0.entry] == $0.old })
            current = full
        }
    }

    /// The search gives the same plan on every run, and what it finds scores at least as well as
    /// no plan (here better: the crowd leaves room to gain).
    @Test func searchIsDeterministicAndNeverWorse() {
        let plan = DenseLabelPlan(entries: Self.crowd(seed: 4, count: 120), padding: 1)
        let a = plan.search(iterations: 800), b = plan.search(iterations: 800)
        #expect(a == b)
        let flat = a.enumerated().map { i, k in k.map { plan.start[i] + $0 } ?? -1 }
        let none = plan.score(plan.decode([Int](repeating: -1, count: plan.entries.count)))
        let found = plan.score(plan.decode(flat))
        print("dense label plan on a generated crowd: score \(none) without a plan, \(found) with")
        #expect(found >= none)
        #expect(found > none)
    }

    /// A name set away with a leader that is in the way of a lower-ranked one moves to another
    /// of its leader places: A (no free side, two leader places) takes the first, which covers
    /// B's only side; the search moves A's name to its second place, and both are named.
    @Test func searchMovesANameSetAwayOutOfTheWay() {
        let a = DenseLabelPlan.Entry(places: [
            .init(box: Rect(x: 120, y: 80, width: 30, height: 10), leader: LeaderLine(x0: 103, y0: 99, x1: 119, y1: 89, width: 0.75)),
            .init(box: Rect(x: 40, y: 120, width: 30, height: 10), leader: LeaderLine(x0: 99, y0: 104, x1: 71, y1: 119, width: 0.75)),
        ], sides: 0, dot: Rect(x: 100, y: 100, width: 4, height: 4), leading: true)
        let b = DenseLabelPlan.Entry(places: [.init(box: Rect(x: 118, y: 78, width: 40, height: 12))],
                                     sides: 1, dot: Rect(x: 160, y: 82, width: 4, height: 4), leading: true)
        let plan = DenseLabelPlan(entries: [a, b], padding: 1)
        #expect(plan.decode([-1, -1]) == [0, -1], "greedily, A's first leader place drops B")
        let found = plan.search(iterations: 200)
        #expect(found[0] == 1, "A set away at its second place")
        #expect(plan.decode(found.enumerated().map { i, k in k.map { plan.start[i] + $0 } ?? -1 }) == [1, 2])
    }

    /// The series e^x agrees with the exact values to 1e-9 over the range the search uses.
    @Test func expMatchesTheSeries() {
        for (x, e) in [(0.0, 1.0), (-1.0, 0.36787944117144233), (-5.0, 0.006737946999085467), (-20.0, 2.061153622438558e-09)] {
            #expect(abs(DenseLabelPlan.exp(x) - e) <= 1e-9 * max(1, e))
        }
        #expect(DenseLabelPlan.exp(-40) == 0)
    }
}
