import Foundation

/// How the animated SVG stacks bubbles so that every frame shows them in its scene's order
/// (`MapLayout.bubbles`: bubbles in transition under the settled ones, larger counts behind),
/// although SMIL cannot reorder elements.
///
/// Only bubbles that overlap have an order one can see. Each frame says, for every two bubbles
/// whose discs (with their outline and a pixel of anti-aliasing) overlap in it, which one is
/// drawn over the other. The frames are cut into runs: a run grows frame by frame while its
/// frames' orders agree (the "drawn under" pairs of all its frames have no cycle), and a frame
/// that contradicts an earlier one of its run (two bubbles that swap while they overlap, or
/// whose order differs at two times they overlap) starts a new run. Each run has one order of
/// its bubbles that keeps every pair of its frames; the SVG writes a copy of each bubble per
/// run, shown in the run's frames only. An animation whose frames all agree is one run: one
/// element per bubble, as before.
///
/// Deterministic: the runs follow the frames in order, and a run's order puts each bubble as
/// early as its pairs allow, by the frame and place it first appears in the run.
/// - Complexity: per frame O(n log n + overlapping pairs) to find the pairs (a sweep along x),
///   and for each pair not yet in the run a search of the run's pairs for a cycle.
struct BubbleStacking {
    /// A run of frames (`frames`) and its bubbles (tracks) bottom to top.
    struct Run: Equatable {
        var frames: ClosedRange<Int>
        var order: [Int]
    }

    private(set) var runs: [Run] = []

    /// - Parameters:
    ///   - frames: per frame, the bubbles' tracks in the order its scene draws them.
    ///   - strokeWidth: the bubbles' outline width, CSS px.
    ///   - disc: a bubble's centre and radius in a frame it is drawn in, CSS px.
    init(frames: [[Int]], strokeWidth: Double, disc: (_ track: Int, _ frame: Int) -> (x: Double, y: Double, r: Double)) {
        var run = Pairs()
        var start = 0
        for (k, order) in frames.enumerated() {
            let pairs = Self.overlapping(order, reach: strokeWidth / 2 + 1) { disc($0, k) }
            if !run.add(pairs) {
                runs.append(Run(frames: start...(k - 1), order: run.order()))
                run = Pairs()
                start = k
                // (One frame's pairs follow one order: they have no cycle.)
                _ = run.add(pairs)
            }
            run.note(order, frame: k)
        }
        if !frames.isEmpty { runs.append(Run(frames: start...(frames.count - 1), order: run.order())) }
    }

    /// The pairs (under, over) of bubbles of `order` (bottom to top) whose discs, widened by
    /// `reach`, overlap: a sweep along x over the discs sorted by their left edge.
    static func overlapping(_ order: [Int], reach: Double, disc: (Int) -> (x: Double, y: Double, r: Double)) -> [(Int, Int)] {
        let discs = order.map(disc)
        let byLeft = discs.indices.sorted { discs[$0].x - discs[$0].r < discs[$1].x - discs[$1].r || (discs[$0].x - discs[$0].r == discs[$1].x - discs[$1].r && $0 < $1) }
        var open: [Int] = []
        var out: [(Int, Int)] = []
        for i in byLeft {
            let a = discs[i]
            open.removeAll { discs[$0].x + discs[$0].r + reach < a.x - a.r - reach }
            for j in open {
                let b = discs[j]
                let dx = a.x - b.x, dy = a.y - b.y, d = a.r + b.r + 2 * reach
                if dx * dx + dy * dy < d * d { out.append(i < j ? (order[i], order[j]) : (order[j], order[i])) }
            }
            open.append(i)
        }
        return out
    }

    /// One run's "drawn under" pairs, and where each bubble first appears in it.
    private struct Pairs {
        /// over[a]: the bubbles drawn over a; under[b]: those drawn under b.
        var over: [Int: [Int]] = [:], under: [Int: [Int]] = [:]
        var known = Set<Pair>()
        /// Per bubble: the frame and place (from the bottom) it first appears at in the run.
        var first: [Int: (frame: Int, place: Int)] = [:]

        struct Pair: Hashable { var under: Int, over: Int }

        /// Adds a frame's pairs; false (and nothing added) when they contradict the run's.
        mutating func add(_ pairs: [(Int, Int)]) -> Bool {
            var added: [Pair] = []
            for (a, b) in pairs {
                let p = Pair(under: a, over: b)
                guard !known.contains(p) else { continue }
                // a under b contradicts the run when b is already (through others) under a.
                if reaches(from: b, to: a) {
                    for q in added.reversed() { remove(q) }
                    return false
                }
                known.insert(p)
                over[a, default: []].append(b)
                under[b, default: []].append(a)
                added.append(p)
            }
            return true
        }

        private mutating func remove(_ p: Pair) {
            known.remove(p)
            over[p.under]?.removeLast()
            under[p.over]?.removeLast()
        }

        /// Whether `to` is drawn over `from` through the pairs (a search along `over`).
        private func reaches(from: Int, to: Int) -> Bool {
            var stack = [from], seen: Set<Int> = [from]
            while let n = stack.popLast() {
                if n == to { return true }
                for m in over[n] ?? [] where seen.insert(m).inserted { stack.append(m) }
            }
            return false
        }

        mutating func note(_ order: [Int], frame: Int) {
            for (place, t) in order.enumerated() where first[t] == nil { first[t] = (frame, place) }
        }

        /// The run's bubbles bottom to top: by first appearance, each after every bubble its
        /// pairs put under it (a depth-first walk down the pairs, without recursion).
        func order() -> [Int] {
            func earlier(_ a: Int, _ b: Int) -> Bool {
                let x = first[a] ?? (.max, .max), y = first[b] ?? (.max, .max)
                return x.frame != y.frame ? x.frame < y.frame : (x.place != y.place ? x.place < y.place : a < b)
            }
            var out: [Int] = []
            out.reserveCapacity(first.count)
            var placed = Set<Int>()
            for start in first.keys.sorted(by: earlier) where !placed.contains(start) {
                // Each entry: a bubble and whether the ones under it are placed already.
                var stack: [(Int, Bool)] = [(start, false)]
                while let (n, ready) = stack.popLast() {
                    if placed.contains(n) { continue }
                    if ready { placed.insert(n); out.append(n); continue }
                    stack.append((n, true))
                    for m in (under[n] ?? []).sorted(by: earlier).reversed() where !placed.contains(m) { stack.append((m, false)) }
                }
            }
            return out
        }
    }
}
