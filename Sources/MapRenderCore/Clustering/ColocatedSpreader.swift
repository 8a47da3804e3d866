import CPrefetch
import Foundation

/// Spreads pins that share one coordinate around it, so every one stays visible and clickable-looking.
///
/// A ring while there are few (its radius grows with their number, like a spiderfy circle), an
/// Archimedean spiral when there are many. Offsets are in pixels at the rendered zoom and keep
/// neighbouring marks at least `separation` apart, so spread pins never overlap.
public enum ColocatedSpreader {
    /// Groups up to this size go on a ring; larger ones on a spiral.
    public static let ringMaximum = 8

    /// The minimum distance between two spread anchors so that two marks of `extent` never overlap:
    /// the diagonal of the mark's box (then neither |dx| < width nor |dy| < height can hold together).
    public static func separation(for extent: EdgeInsets, gap: Double = 2) -> Double {
        let w = extent.left + extent.right, h = extent.top + extent.bottom
        return (w * w + h * h).squareRoot() + gap
    }

    /// Pixel offsets from the shared point for `count` members, in member order.
    ///
    /// Ring: n points on a circle whose circumference is `separation · max(n, 3)`, starting at
    /// the top and going clockwise. Spiral: each step advances `separation` along the arc, and
    /// successive turns are at least `separation` apart, so no two anchors are closer than `separation`.
    public static func offsets(count: Int, separation s: Double) -> [(dx: Double, dy: Double)] {
        guard count > 1 else { return count == 1 ? [(0, 0)] : [] }
        var out: [(dx: Double, dy: Double)] = []
        out.reserveCapacity(count)
        if count <= ringMaximum {
            // Chord between neighbours = 2R sin(π/n) must be ≥ s.
            let r = s / (2 * sin(.pi / Double(count)))
            for i in 0..<count {
                let a = -Double.pi / 2 + 2 * Double.pi * Double(i) / Double(count)
                out.append((r * cos(a), r * sin(a)))
            }
            return out
        }
        // Archimedean spiral r = b·θ. Turns are 2πb apart radially; the normal distance between turns
        // is a little less (cos of the pitch angle, ≥ 0.98 here), hence 5% extra. Each step moves a
        // chord of length s along the spiral.
        let b = 1.05 * s / (2 * .pi)
        var theta = 2 * Double.pi
        for _ in 0..<count {
            let r = b * theta
            out.append((r * cos(theta - .pi / 2), r * sin(theta - .pi / 2)))
            theta += 2 * asin(min(1, s / (2 * r)))
        }
        return out
    }

    /// Groups point indexes that share a pixel position exactly (`tolerance` 0) or lie within
    /// `tolerance` pixels of each other (single linkage, through a grid of `tolerance`-sized cells).
    /// Returns groups of two or more, each sorted by member order key, groups ordered by first member.
    ///
    /// - Parameters:
    ///   - keys: exact coordinates per candidate (e.g. longitude/latitude bit patterns) used when tolerance is 0.
    ///   - px, py: pixel positions per candidate.
    /// - Complexity: O(n) expected with hashing.
    public static func groups(count n: Int, exactKey: (Int) -> (UInt64, UInt64),
                              px: [Double], py: [Double], tolerance: Double) -> [[Int]] {
        if tolerance <= 0 {
            // Open addressing over flat arrays: a million unique points cost one probe each and no
            // allocation per point (a Dictionary of a million keys took ~0.5 s here). A slot keeps
            // 32 bits of the key's hash beside the candidate's index, so a probe past another key
            // reads that key's coordinates (a cache miss once the points outgrow the cache: 10M
            // points took 1.3 s here) only when those bits match.
            //
            // 1.5 slots a point, not a power of two at least twice the points: at 2M points that
            // table took 32 MB, as much as the whole last-level cache here, and the stage grew
            // 2.23x from 1M points (the probes' misses). A slot is picked by the hash's high bits
            // scaled to the capacity (a multiply, not a mask), and the tag is the low 32 bits,
            // so keys probing one neighbourhood still differ in their tags.
            precondition(n < 1 << 32 - 1, "a slot holds an index below 2^32 - 1")
            let capacity = max(16, n + n / 2)
            @inline(__always) func slot(_ hash: UInt64) -> Int {
                Int(truncatingIfNeeded: hash.multipliedFullWidth(by: UInt64(capacity)).high)
            }
            let table = LargeBuffer<UInt64>(count: capacity, repeating: 0)   // tag << 32 | (index + 1); 0: empty
            var firstOf = [Int32](repeating: -1, count: n)
            var duplicates = false
            firstOf.withUnsafeMutableBufferPointer { firstOf in
                // Each point's slot is a cache miss once the table outgrows the cache: the slot
                // of the point 16 on is fetched while this one is probed (the stage at 2M
                // gen_points: 748 -> 683 ms). The stage grew 3x from 250k to 500k points for
                // another reason: a refit planned every point twice (`MapPlanner.nearEdges`).
                let ahead = 16
                for i in 0..<n {
                    if i + ahead < n {
                        let next = exactKey(i + ahead)
                        mr_prefetch(table.base + slot(Hash64.mix(next.0 &+ Hash64.mix(next.1))))
                    }
                    let k = exactKey(i)
                    let hash = Hash64.mix(k.0 &+ Hash64.mix(k.1))
                    let tag = hash & 0xFFFF_FFFF
                    var h = slot(hash)
                    while true {
                        let t = table[h]
                        if t == 0 { table[h] = tag << 32 | UInt64(i + 1); break }
                        if t >> 32 == tag {
                            let j = Int(t & 0xFFFF_FFFF) - 1
                            let kt = exactKey(j)
                            if kt.0 == k.0 && kt.1 == k.1 { firstOf[i] = Int32(j); duplicates = true; break }
                        }
                        h = h + 1 == capacity ? 0 : h + 1
                    }
                }
            }
            guard duplicates else { return [] }
            var members: [Int: [Int]] = [:]
            for i in 0..<n where firstOf[i] >= 0 {
                let f = Int(firstOf[i])
                members[f, default: [f]].append(i)
            }
            return members.values.sorted { $0[0] < $1[0] }
        }
        // Within a tolerance: pairs closer than it, joined into groups (union-find).
        var parent = Array(0..<n)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        func union(_ a: Int, _ b: Int) {
            let ra = find(a), rb = find(b)
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        var cells: [Cell: [Int]] = [:]
        for i in 0..<n {
            let c = Cell(x: Int((px[i] / tolerance).rounded(.down)), y: Int((py[i] / tolerance).rounded(.down)))
            for dx in -1...1 {
                for dy in -1...1 {
                    guard let others = cells[Cell(x: c.x + dx, y: c.y + dy)] else { continue }
                    for j in others {
                        let ex = px[i] - px[j], ey = py[i] - py[j]
                        if ex * ex + ey * ey <= tolerance * tolerance { union(i, j) }
                    }
                }
            }
            cells[c, default: []].append(i)
        }
        var members: [Int: [Int]] = [:]
        for i in 0..<n { members[find(i), default: []].append(i) }
        return members.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
    }

    private struct Cell: Hashable { var x: Int; var y: Int }
}
