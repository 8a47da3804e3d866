/// A plan for the names of a dense dot map: which place each of the top-ranked names should try
/// first, found by simulated annealing (as Christensen, Marks and Shieber found best for point
/// labels), so that the greedy placement in priority order names more of the places that matter.
///
/// ```swift
/// let plan = DenseLabelPlan(entries: entries, padding: 1)    // the first names, in priority order
/// let preferred = plan.search(iterations: 25_000)   // per entry: the place to try first, or nil
/// ```
///
/// The search never decides on its own: it proposes preferences, and each proposal is judged by
/// `decode`, the greedy placement itself (in priority order, each name at its first free place,
/// the preferred one first). So whatever it finds keeps the priority rule: a name is dropped
/// only when every place of it is taken by names ranked higher (or fixed marks). The score
/// weighs the leading places named (`Entry.leading`: no higher-ranked leading place's dot near
/// it; 1000 × 0.97^(rank among them), so Hanoi counts more than Bangkok) above the other names
/// (500 × 0.97^rank).
///
/// Written by hand: no library plans label placement. Which places block which is worked out
/// once (`blocks`, `dotBlocks`); a placement keeps per place a count of what blocks it
/// (`State`), so a name's decision is a scan of its places' counts. A step decides again only
/// the names whose preference, or an earlier neighbour's decision, changed (`redecode`), and a
/// step the search rejects is set back from the decisions it changed.
struct DenseLabelPlan {
    /// One place a name may take: its box grown by the text padding, and its leader line (none
    /// beside its dot), which stands in the index as squares of `LeaderLabel.boxSide` along it.
    struct Place {
        var box: Rect
        var leader: LeaderLine?
        /// The box and the leader's squares together.
        var bounds: Rect

        init(box: Rect, leader: LeaderLine? = nil) {
            self.box = box
            self.leader = leader
            let h = LeaderLabel.boxSide / 2
            bounds = leader.map { l in
                LabelLayout.union(box, Rect(x: min(l.x0, l.x1) - h, y: min(l.y0, l.y1) - h,
                                            width: abs(l.x1 - l.x0) + 2 * h, height: abs(l.y1 - l.y0) + 2 * h))
            } ?? box
        }

        /// Whether two places meet as the index sees them: boxes, a box and the squares along a
        /// leader (the leader within half a square of the box), two leaders' squares (the leaders
        /// within a square of each other, measured along x or y).
        func meets(_ o: Place) -> Bool {
            guard bounds.intersects(o.bounds) else { return false }
            if box.intersects(o.box) { return true }
            let h = LeaderLabel.boxSide / 2
            if let l = leader, Self.segment(l, hits: LabelLayout.padded(o.box, by: h)) { return true }
            if let l = o.leader, Self.segment(l, hits: LabelLayout.padded(box, by: h)) { return true }
            guard let a = leader, let b = o.leader else { return false }
            let d = LeaderLabel.boxSide
            func near(_ x: Double, _ y: Double, _ l: LeaderLine) -> Bool {
                Self.segment(l, hits: Rect(x: x - d, y: y - d, width: 2 * d, height: 2 * d))
            }
            return near(a.x0, a.y0, b) || near(a.x1, a.y1, b) || near(b.x0, b.y0, a) || near(b.x1, b.y1, a)
                || Self.cross(a, b)
        }

        /// Whether the place's name covers `dot`: its box without the `padding` it is grown by.
        func covers(_ dot: Rect, padding: Double) -> Bool {
            LabelLayout.padded(box, by: -padding).intersects(dot)
        }

        /// Whether the segment meets the open rect (Liang–Barsky clipping).
        static func segment(_ l: LeaderLine, hits r: Rect) -> Bool {
            var t0 = 0.0, t1 = 1.0
            let dx = l.x1 - l.x0, dy = l.y1 - l.y0
            func clip(_ p: Double, _ q: Double) -> Bool {
                if p == 0 { return q > 0 }
                let t = q / p
                if p < 0 { if t > t1 { return false }; t0 = max(t0, t) } else { if t < t0 { return false }; t1 = min(t1, t) }
                return true
            }
            guard clip(-dx, l.x0 - r.x), clip(dx, r.maxX - l.x0), clip(-dy, l.y0 - r.y), clip(dy, r.maxY - l.y0) else { return false }
            return t0 < t1
        }

        /// Whether two segments cross.
        static func cross(_ a: LeaderLine, _ b: LeaderLine) -> Bool {
            func side(_ px: Double, _ py: Double, _ l: LeaderLine) -> Double {
                (l.x1 - l.x0) * (py - l.y0) - (l.y1 - l.y0) * (px - l.x0)
            }
            return side(b.x0, b.y0, a) * side(b.x1, b.y1, a) < 0 && side(a.x0, a.y0, b) * side(a.x1, a.y1, b) < 0
        }
    }

    /// One name, in priority order.
    struct Entry {
        /// Its sides that are clear of fixed marks, in the order the greedy tries them (cheapest
        /// first, ties in the usual order), then (a leading place only) its places with a leader
        /// line, nearest ring first, cheapest first.
        var places: [Place]
        /// How many of `places` are sides.
        var sides: Int
        /// Its dot: once it is named, no later name covers it (`LabelLayout.PlainPlacer.free`).
        var dot: Rect
        /// A leading place: no higher-ranked place's dot within `LabelLayout.leadingSpacing` of
        /// its own.
        var leading: Bool
    }

    let entries: [Entry]
    /// What the places' boxes are grown by (the text padding's half).
    let padding: Double
    /// Per entry, the earlier entries whose places may meet its places, and the later ones.
    let before: [[Int]], after: [[Int]]
    /// Per entry, what naming it is worth: a leading place 1000 × 0.97^(its rank among them),
    /// another 500 × 0.97^(its rank), at least 1 (Guangzhou, ranked third but beside Shenzhen,
    /// still counts for more than a leading place far down).
    let weights: [Int]
    /// Every entry's places in one flat array, entry by entry: a decision is an index in it, -1
    /// for none. (Nested arrays cost a retain and a release at each look.)
    let flat: [Place]
    /// Per entry: where its places start in `flat`, where its leader places start, where they end.
    let start: [Int], leadersStart: [Int], end: [Int]
    /// Per entry, its dot (`Entry.dot`, apart: reading an entry copies its arrays' references).
    let dots: [Rect]
    /// The leading entries, in order.
    let leadingEntries: [Int]
    /// Per place in `flat`, what its being taken blocks, as lists in flat arrays (place p's part
    /// from `blocksStart[p]` to `blocksStart[p + 1]`): the later entries' places it meets. And per
    /// entry, what its being named blocks: the later entries' places that cover its dot, lie
    /// nearer to it than to their own, or (a leading entry's dot) have a leader across it (from
    /// `dotBlocksStart[i]` to `dotBlocksStart[i + 1]`). Worked out once: the geometry of two
    /// places never changes, and testing it in each step took two thirds of the search.
    let blocks: [Int32], blocksStart: [Int]
    let dotBlocks: [Int32], dotBlocksStart: [Int]

    /// A placement: per entry its decision (a place in `flat`, -1: dropped), and per place how
    /// many taken places and named dots of earlier entries block it (free when 0). Changed only
    /// through `set`, so the counts always match the decisions.
    struct State {
        var decisions: [Int]
        var blocked: [Int32]
    }

    init(entries: [Entry], padding: Double) {
        self.entries = entries
        self.padding = padding
        var flat: [Place] = [], start: [Int] = [], leadersStart: [Int] = [], end: [Int] = []
        for e in entries {
            start.append(flat.count); leadersStart.append(flat.count + e.sides)
            flat += e.places
            end.append(flat.count)
        }
        self.flat = flat; self.start = start; self.leadersStart = leadersStart; self.end = end
        dots = entries.map(\.dot)
        leadingEntries = entries.indices.filter { entries[$0].leading }
        let regions: [Rect?] = entries.map { e in
            var r: Rect? = e.dot
            for p in e.places { r = r.map { LabelLayout.union($0, p.bounds) } ?? p.bounds }
            return r
        }
        var before = [[Int]](repeating: [], count: entries.count), after = before
        for i in entries.indices {
            guard let ri = regions[i] else { continue }
            for j in 0..<i { if let rj = regions[j], rj.intersects(ri) { before[i].append(j); after[j].append(i) } }
        }
        self.before = before; self.after = after
        // Each pair of places once, from the later one's side (its earlier neighbours), then
        // turned round into what each place blocks.
        var pairs: [(from: Int32, blocked: Int32)] = [], dotPairs: [(from: Int32, blocked: Int32)] = []
        for i in entries.indices {
            let own = dots[i]
            for q in start[i]..<end[i] {
                let place = flat[q]
                // A side's name (not one set away) lies nearer its own dot than any named one's.
                let side = q < leadersStart[i]
                let box = LabelLayout.padded(place.box, by: -padding)
                let ownDistance = side ? LabelLayout.distance(box, own.midX, own.midY) : 0
                for j in before[i] {
                    let dot = dots[j]
                    // Covers the dot, lies nearer it than its own (a side), or its leader crosses
                    // it (a leading place's: `LabelLayout.PlainPlacer.crossesLeadingDot`).
                    if place.covers(dot, padding: padding) || (side && LabelLayout.distance(box, dot.midX, dot.midY) < ownDistance)
                        || (entries[j].leading && place.leader.map { Place.segment($0, hits: dot) } == true) {
                        dotPairs.append((Int32(j), Int32(q)))
                        continue
                    }
                    guard let rj = regions[j], rj.intersects(place.bounds) else { continue }
                    for p in start[j]..<end[j] where flat[p].meets(place) { pairs.append((Int32(p), Int32(q))) }
                }
            }
        }
        (blocks, blocksStart) = Self.grouped(pairs, count: flat.count)
        (dotBlocks, dotBlocksStart) = Self.grouped(dotPairs, count: entries.count)
        var rank = 0.0
        weights = entries.enumerated().map { k, e in
            // ln 0.97: each rank down weighs 3% less.
            guard e.leading else { return max(1, Int((500 * Self.exp(Double(k) * -0.030459207484708574)).rounded())) }
            defer { rank += 1 }
            return Int((1000 * Self.exp(rank * -0.030459207484708574)).rounded())
        }
    }

    /// Pairs grouped by their first member (`from` in 0..<count), in flat arrays: the second
    /// members, and where each group starts (count + 1 offsets).
    static func grouped(_ pairs: [(from: Int32, blocked: Int32)], count: Int) -> ([Int32], [Int]) {
        var starts = [Int](repeating: 0, count: count + 1)
        for p in pairs { starts[Int(p.from) + 1] += 1 }
        for k in 0..<count { starts[k + 1] += starts[k] }
        var fill = starts, out = [Int32](repeating: 0, count: pairs.count)
        for p in pairs { out[fill[Int(p.from)]] = p.blocked; fill[Int(p.from)] += 1 }
        return (out, starts)
    }

    /// No entry named.
    var empty: State {
        State(decisions: [Int](repeating: -1, count: entries.count), blocked: [Int32](repeating: 0, count: flat.count))
    }

    /// The state with entry `i`'s decision `d`: the places its old one blocked freed, those its
    /// new one blocks blocked.
    func set(_ i: Int, to d: Int, in s: inout State) {
        let old = s.decisions[i]
        guard old != d else { return }
        if old >= 0 { for k in blocksStart[old]..<blocksStart[old + 1] { s.blocked[Int(blocks[k])] -= 1 } }
        if d >= 0 { for k in blocksStart[d]..<blocksStart[d + 1] { s.blocked[Int(blocks[k])] += 1 } }
        if (old >= 0) != (d >= 0) {
            let step: Int32 = d >= 0 ? 1 : -1
            for k in dotBlocksStart[i]..<dotBlocksStart[i + 1] { s.blocked[Int(dotBlocks[k])] += step }
        }
        s.decisions[i] = d
    }

    /// Entry `i`'s decision: its preferred place when free, else its first free side, else its
    /// first free leader place; -1 when none is free. `blocked` counts what the earlier entries'
    /// decisions block (`State`).
    func decide(_ i: Int, preferred: Int, blocked: [Int32]) -> Int {
        let sides = start[i]..<leadersStart[i], away = leadersStart[i]..<end[i]
        if preferred >= 0 && sides.contains(preferred) && blocked[preferred] == 0 { return preferred }
        for q in sides where blocked[q] == 0 { return q }
        if preferred >= 0 && away.contains(preferred) && blocked[preferred] == 0 { return preferred }
        for q in away where blocked[q] == 0 { return q }
        return -1
    }

    /// The greedy placement with `preferred` places (flat indices, -1: none) tried first: per
    /// entry its place or -1 (dropped).
    func decode(_ preferred: [Int]) -> [Int] { decodedState(preferred).decisions }

    /// `decode`'s whole state (`State`).
    func decodedState(_ preferred: [Int]) -> State {
        var s = empty
        for i in entries.indices { set(i, to: decide(i, preferred: preferred[i], blocked: s.blocked), in: &s) }
        return s
    }

    /// `decode` again, in place, after the preferences of `changed` entries changed: only the
    /// entries whose preference or an earlier neighbour's decision changed are decided again (an
    /// entry's decision depends on nothing else). Returns each entry that changed with its old
    /// decision, in order (setting them back in reverse order restores the state).
    func redecode(_ preferred: [Int], state s: inout State, changed: [Int]) -> [(entry: Int, old: Int)] {
        var dirty = [Bool](repeating: false, count: entries.count)
        var first = entries.count
        for i in changed { dirty[i] = true; first = min(first, i) }
        var moved: [(entry: Int, old: Int)] = []
        var i = first
        while i < entries.count {
            if dirty[i] {
                let d = decide(i, preferred: preferred[i], blocked: s.blocked)
                if d != s.decisions[i] {
                    moved.append((i, s.decisions[i]))
                    set(i, to: d, in: &s)
                    for k in after[i] { dirty[k] = true }
                }
            }
            i += 1
        }
        return moved
    }

    func score(_ d: [Int]) -> Int {
        var s = 0
        for (k, q) in d.enumerated() where q >= 0 { s += weights[k] }
        return s
    }

    /// Simulated annealing over the preferences, `iterations` steps at most, from a fixed seed:
    /// the same plan on every run. Each step either moves a dropped leading name to one of its
    /// places and the names ranked above it that are in the way to other places of theirs (a
    /// name beside its dot to another side, a name set away to another place with a leader), or
    /// moves one placed name likewise. (Names set away once stayed where the greedy put them:
    /// Wuhan's leader, run north, kept Xi'an unnamed.) The best preferences found: per entry an
    /// index in its `places`, or nil.
    func search(iterations: Int) -> [Int?] {
        var rng = SplitMix64(state: 0x6d61_7072_656e_6465)
        func random(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        var preferred = [Int](repeating: -1, count: entries.count)
        var state = decodedState(preferred)
        var currentScore = score(state.decisions)
        var best = (score: currentScore, preferred: preferred)
        var temperature = 300.0
        for _ in 0..<iterations {
            let current = state.decisions
            var next = preferred
            var changed: [Int] = []
            let dropped = leadingEntries.filter { current[$0] < 0 }
            if dropped.isEmpty { break }
            if rng.next() % 5 != 0 {
                let i = dropped[random(dropped.count)]
                guard end[i] > start[i] else { continue }
                let k = start[i] + random(end[i] - start[i])
                next[i] = k
                changed.append(i)
                // The names above it in the way, each to another place of its own clear of it:
                // another side, or, set away, another place with a leader.
                for j in before[i] {
                    let c = current[j]
                    guard c >= 0, flat[c].meets(flat[k]) else { continue }
                    let range = c < leadersStart[j] ? start[j]..<leadersStart[j] : leadersStart[j]..<end[j]
                    let others = range.filter { !flat[$0].meets(flat[k]) }
                    guard !others.isEmpty else { continue }
                    next[j] = others[random(others.count)]
                    changed.append(j)
                }
            } else {
                let placed = entries.indices.filter { current[$0] >= 0 }
                guard !placed.isEmpty else { break }
                let j = placed[random(placed.count)]
                let range = current[j] < leadersStart[j] ? start[j]..<leadersStart[j] : leadersStart[j]..<end[j]
                next[j] = range.lowerBound + random(range.count)
                changed.append(j)
            }
            let undo = redecode(next, state: &state, changed: changed)
            var s = currentScore
            for (i, old) in undo {
                if old >= 0 { s -= weights[i] }
                if state.decisions[i] >= 0 { s += weights[i] }
            }
            let u = rng.uniform()
            if s >= currentScore || u < Self.exp(Double(s - currentScore) / temperature) {
                preferred = next; currentScore = s
                if s > best.score { best = (s, next) }
            } else {
                for (i, old) in undo.reversed() { set(i, to: old, in: &state) }
            }
            temperature = max(1, temperature * 0.999)
        }
        return best.preferred.enumerated().map { i, q in q < 0 ? nil : q - start[i] }
    }

    /// e^x for x ≤ 0, without Foundation (the same bits on every machine: a series, not libm).
    static func exp(_ x: Double) -> Double {
        guard x > -30 else { return 0 }
        // e^x = (e^(x/64))^64, the small power by its series.
        let y = x / 64
        var term = 1.0, sum = 1.0
        for n in 1...10 { term *= y / Double(n); sum += term }
        for _ in 0..<6 { sum *= sum }
        return sum
    }
}

extension LabelLayout.PlainPlacer {
    /// The plan for the first `count` point names of `order` (`DenseLabelPlan`), searched for
    /// `iterations` steps: per candidate, the place it should try first; and the candidates planned.
    func plan(order: [Int], candidates: LabelLayout.PlainCandidates, leading: Set<Int>, count: Int,
              iterations: Int) -> (preferred: [Int: Preferred], planned: Set<Int>) {
        var planned: [Int] = []
        var entries: [DenseLabelPlan.Entry] = []
        var real: [[Preferred]] = []
        let labelFont = font(smallerType: true)
        for j in order where j >= candidates.bubbleLabels {
            guard planned.count < count else { break }
            guard let text = candidates.texts(j).first else { continue }
            var label = candidates.labels[j]
            label.size = measured(text, font: labelFont)
            var places: [DenseLabelPlan.Place] = [], reals: [Preferred] = []
            // Sides clear of fixed marks, in the order `side(for:)` takes them.
            var free: [(box: Rect, side: LabelSide, cost: Int, k: Int)] = []
            for (k, (b, side, _)) in boxes(LabelSide.allCases, for: label, disc: nil).enumerated() {
                guard image.contains(b), raster.isFree(b), !discs.intersects(b) else { continue }
                free.append((b, side, positionCost(b), k))
            }
            free.sort { ($0.cost, $0.k) < ($1.cost, $1.k) }
            for f in free {
                places.append(.init(box: LabelLayout.padded(f.box, by: padding)))
                reals.append(Preferred(box: f.box, side: f.side, leader: nil))
            }
            let sides = free.count
            // Then, for a leading place, places with a leader line, as `placeLeadered` takes them.
            if leaders && leading.contains(j) {
                var away: [(cand: LeaderLabel.Candidate, cost: Int, k: Int)] = []
                for (k, cand) in leaderCandidates(for: label).enumerated() where clearOfFixedMarks(cand) {
                    away.append((cand, positionCost(cand.box), k))
                }
                away.sort { ($0.cand.ring, $0.cost, $0.k) < ($1.cand.ring, $1.cost, $1.k) }
                for a in away {
                    places.append(.init(box: LabelLayout.padded(a.cand.box, by: padding), leader: a.cand.leader))
                    reals.append(Preferred(box: a.cand.box, side: LabelSide.allCases[a.cand.direction], leader: a.cand.leader))
                }
            }
            planned.append(j)
            entries.append(.init(places: places, sides: sides, dot: candidates.labels[j].markBox, leading: leading.contains(j)))
            real.append(reals)
        }
        let plan = DenseLabelPlan(entries: entries, padding: padding)
        var out: [Int: Preferred] = [:]
        for (i, choice) in plan.search(iterations: iterations).enumerated() {
            if let k = choice { out[planned[i]] = real[i][k] }
        }
        return (out, Set(planned))
    }
}
