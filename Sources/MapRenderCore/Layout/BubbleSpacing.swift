import Foundation

/// Keeps cluster bubbles from hiding each other: a display nudge, after clustering.
///
/// supercluster places a cluster at its members' weighted mean, and a bubble's radius (from the
/// style's count steps) can exceed half the cluster radius, so neighbouring bubbles overlap and a
/// big one can cover a small one's count. Here bubbles that overlap by more than a quarter of the
/// smaller radius are pushed apart along the line between their centres (the smaller one moves
/// more), a few rounds, until none does; a stack's bubble (one coordinate) moves at most a quarter
/// of its radius (`apply`). Only the drawn position moves: cluster membership, ids and counts stay
/// exactly supercluster's.
public enum BubbleSpacing {
    /// The largest overlap allowed, as a fraction of the smaller radius.
    public static let maxOverlap = 0.25

    /// Nudges `x`, `y` (CSS px) of circles of radius `r` apart; returns the number of rounds used.
    /// Circles are swept in x order, so each round costs O(n log n + pairs within reach).
    /// - Complexity: O(rounds · (n log n + k)), n bubbles, k close pairs; independent of the points.
    @discardableResult
    public static func separate(x: inout [Double], y: inout [Double], r: [Double], maxRounds: Int = 60) -> Int {
        let n = x.count
        guard n > 1 else { return 0 }
        let maxR = r.max() ?? 0
        var order = Array(0..<n)
        // Each round works on copies in sweep order (sequential memory in the inner loop, which
        // visits every pair within reach in x): same pairs, same order, same arithmetic as
        // indexing through `order`, so the same positions to the last bit.
        var xs = [Double](repeating: 0, count: n), ys = xs, rs = xs
        for round in 0..<maxRounds {
            order.sort { x[$0] != x[$1] ? x[$0] < x[$1] : $0 < $1 }
            for a in 0..<n { let i = order[a]; xs[a] = x[i]; ys[a] = y[i]; rs[a] = r[i] }
            let moved = xs.withUnsafeMutableBufferPointer { xs in
                ys.withUnsafeMutableBufferPointer { ys in
                    rs.withUnsafeBufferPointer { rs in
                        order.withUnsafeBufferPointer { order in
                            sweep(xs, ys, rs, order, maxR: maxR)
                        }
                    }
                }
            }
            for a in 0..<n { let i = order[a]; x[i] = xs[a]; y[i] = ys[a] }
            if !moved { return round }
        }
        return maxRounds
    }

    /// One round over circles in x order (`order[a]` is circle a's index, for the tie direction).
    private static func sweep(_ x: UnsafeMutableBufferPointer<Double>, _ y: UnsafeMutableBufferPointer<Double>,
                              _ r: UnsafeBufferPointer<Double>, _ order: UnsafeBufferPointer<Int>, maxR: Double) -> Bool {
        let n = x.count
        var moved = false
        for a in 0..<n {
            let ri = r[a], reach = ri + maxR
            var b = a + 1
            while b < n {
                if x[b] - x[a] > reach { break }
                let j = b
                b += 1
                // No push when |dy| alone reaches the allowed distance (which is at most `reach`):
                // the distance below could not be smaller.
                if abs(y[j] - y[a]) >= reach { continue }
                let rj = r[j]
                let small = min(ri, rj)
                let minDistance = ri + rj - maxOverlap * small
                var dx = x[j] - x[a], dy = y[j] - y[a]
                let limit = minDistance - 1e-6, squared = dx * dx + dy * dy
                // Clearly apart (the margin dwarfs rounding): no square root needed to know it.
                if limit > 0 && squared > limit * limit * (1 + 1e-9) { continue }
                var d = squared.squareRoot()
                guard d < limit else { continue }
                if d < 1e-9 {
                    // Same centre: separate along a fixed direction, deterministic by index.
                    dx = order[a] < order[j] ? 1 : -1; dy = 0; d = 1e-9
                }
                // Push to the allowed distance plus a margin, the smaller bubble taking the larger share.
                let push = minDistance - d + 0.5
                let shareJ = ri / (ri + rj), shareI = 1 - shareJ
                let ux = d < 1e-6 ? dx : dx / d, uy = d < 1e-6 ? dy : dy / d
                x[a] -= ux * push * shareI; y[a] -= uy * push * shareI
                x[j] += ux * push * shareJ; y[j] += uy * push * shareJ
                moved = true
            }
        }
        return moved
    }

    /// The largest overlap among circles, as a fraction of the smaller radius (0 when none overlap).
    public static func worstOverlap(x: [Double], y: [Double], r: [Double]) -> Double {
        var worst = 0.0
        for i in x.indices {
            for j in x.indices where j > i {
                let d = hypot(x[j] - x[i], y[j] - y[i])
                let overlap = r[i] + r[j] - d
                if overlap > 0 { worst = max(worst, overlap / min(r[i], r[j])) }
            }
        }
        return worst
    }
}

extension BubbleSpacing {
    /// How far a stack's bubble (points sharing one coordinate, no cluster id) may be nudged from
    /// its coordinate, as a fraction of its radius: beyond that the overlap stays, and the larger
    /// bubble is drawn behind (`MapLayout.bubbles` draws larger ones first). A stack's bubble
    /// says "these are here": 47 px off, the MCO bubble sat over the Atlantic (issue 47).
    public static let maxStackNudge = 0.25

    /// Nudges the plan's bubbles (a display copy of the plan) with their radii from the style; a
    /// stack's bubble moves at most `maxStackNudge` of its radius.
    public static func apply(to plan: inout MarkPlan, style: Style.Cluster) {
        guard plan.bubbles.count > 1 else { return }
        var x = plan.bubbles.map(\.x), y = plan.bubbles.map(\.y)
        let r = plan.bubbles.map { $0.radius + style.strokeWidth / 2 }
        separate(x: &x, y: &y, r: r)
        for i in plan.bubbles.indices {
            var dx = x[i] - plan.bubbles[i].x, dy = y[i] - plan.bubbles[i].y
            let limit = maxStackNudge * plan.bubbles[i].radius, d = (dx * dx + dy * dy).squareRoot()
            if plan.bubbles[i].clusterID == nil && d > limit {
                dx *= limit / d; dy *= limit / d
            }
            plan.bubbles[i].x += dx; plan.bubbles[i].y += dy
        }
    }
}
