import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// The kdbush-like tree and the neighbour grid against brute force.
@Suite struct ClusterKDIndexTests {
    /// Pseudo-random points in [0, 1]², clumped, as x0, y0, x1, y1, ...
    static func points(_ n: Int, seed: UInt64) -> [Double] {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        var xy: [Double] = []
        for _ in 0..<n {
            let cx = (next() * 8).rounded(.down) / 8, cy = (next() * 8).rounded(.down) / 8
            xy.append(Double(Float(cx + next() * next() * 0.125)))
            xy.append(Double(Float(cy + next() * next() * 0.125)))
        }
        return xy
    }

    @Test(arguments: [0, 1, 7, 64, 65, 700, 5000])
    func queriesFindWhatBruteForceFinds(count: Int) {
        let xy = Self.points(count, seed: UInt64(count) + 1)
        for nodeSize in [2, 16, 64] {
            let tree = KDIndex(xy: xy, nodeSize: nodeSize)
            #expect(tree.count == count)
            let ranks = tree.traversalRanks()
            #expect(Set(ranks).count == count)
            for (qx, qy, r) in [(0.3, 0.6, 0.05), (0.0, 0.0, 0.2), (0.51, 0.49, 0.001), (0.5, 0.5, 2.0)] {
                var found: [Int32] = []
                tree.within(x: qx, y: qy, radius: r, into: &found)
                let expected = (0..<count).filter {
                    let dx = Double(Float(xy[2 * $0])) - qx, dy = Double(Float(xy[2 * $0 + 1])) - qy
                    return dx * dx + dy * dy <= r * r
                }
                #expect(Set(found.map(Int.init)) == Set(expected) && found.count == expected.count)
                // Results come in the order of the tree's ranks (what the clustering relies on).
                #expect(found.map { ranks[Int($0)] } == found.map { ranks[Int($0)] }.sorted())

                var boxed: [Int32] = []
                tree.range(minX: qx - r, minY: qy - r, maxX: qx + r, maxY: qy + r, into: &boxed)
                let inBox = (0..<count).filter {
                    let x = Double(Float(xy[2 * $0])), y = Double(Float(xy[2 * $0 + 1]))
                    return x >= qx - r && x <= qx + r && y >= qy - r && y <= qy + r
                }
                #expect(Set(boxed.map(Int.init)) == Set(inBox) && boxed.count == inBox.count)
                #expect(boxed.map { ranks[Int($0)] } == boxed.map { ranks[Int($0)] }.sorted())
            }
        }
    }

    /// A grid over points given as x0, y0, x1, y1, ... (refs = indexes), loaded for `zoom`.
    final class GridFixture {
        let xy: [Double], xs: [Double], ys: [Double]
        let grid: NeighbourGrid
        var slot: [Int32]

        init(xy: [Double]) {
            self.xy = xy
            xs = stride(from: 0, to: xy.count, by: 2).map { xy[$0] }
            ys = stride(from: 1, to: xy.count, by: 2).map { xy[$0] }
            grid = NeighbourGrid(capacity: xs.count)
            slot = [Int32](repeating: -1, count: xs.count)
        }

        func load(cell: Double, zoom: Int) {
            slot.withUnsafeMutableBufferPointer { s in
                grid.load(points: xs.count, xy: xy.map(Float.init), cell: cell, zoom: zoom, slot: s.baseAddress!)
            }
        }

        func position(_ ref: Int, zoom: Int) -> Int32? { NeighbourGrid.position(slot: slot[ref], zoom: zoom) }

        /// Whether any other item lies within `d` of item i along both axes.
        func hasNeighbour(_ i: Int, within d: Double) -> Bool {
            xs.indices.contains { j in j != i && abs(xs[j] - xs[i]) <= d && abs(ys[j] - ys[i]) <= d }
        }

        /// The sweep's contract: an item with another within the cell along both axes is not
        /// isolated; one it calls not isolated has another within the cell and a few Float steps
        /// (it bounds positions in Float arithmetic, `bits(around:within:)`: asking about an item
        /// with nobody within the radius changes no cluster).
        func expectIsolation(_ i: Int, zoom: Int, cell: Double, sourceLocation: SourceLocation = #_sourceLocation) {
            let isolated = position(i, zoom: zoom) == nil
            if hasNeighbour(i, within: cell) {
                #expect(!isolated, "item \(i) has a neighbour within the cell", sourceLocation: sourceLocation)
            } else if !isolated {
                #expect(hasNeighbour(i, within: cell + 0x1p-22), "item \(i) asked about with nobody near",
                        sourceLocation: sourceLocation)
            }
        }
    }

    /// Pairs a Float step or a few either side of the cell's edge, along y and along x (and one
    /// exactly on it): the sweep never calls an item with a neighbour within the cell isolated,
    /// and `take` from any item it asks about finds exactly the items within the radius.
    @Test func gridAtTheCellsEdge() {
        var rng = SeededRandom(seed: 23)
        let r = 0.003, cell = r * (1 + 1e-9) + 0x1p-23
        var xy: [Double] = []
        for k in 0..<300 {
            // Spread over [0.05, 0.95]², a lattice far wider than the cell, so pairs stay apart.
            let x0 = Float(0.05 + Double(k % 20) * 0.045 + Double.random(in: 0..<0.01, using: &rng))
            let y0 = Float(0.05 + Double(k / 20) * 0.06 + Double.random(in: 0..<0.01, using: &rng))
            var edge = Float(Double(k % 2 == 0 ? y0 : x0) + cell)
            for _ in 0..<(k / 2) % 7 { edge = edge.nextDown }
            for _ in 0..<(k / 2) % 5 { edge = edge.nextUp }
            let partner: (Float, Float) = k % 2 == 0 ? (x0, edge) : (edge, y0)
            xy += [Double(x0), Double(y0), Double(partner.0), Double(partner.1)]
        }
        let f = GridFixture(xy: xy)
        let count = xy.count / 2
        f.load(cell: cell, zoom: 7)
        for i in 0..<count {
            f.expectIsolation(i, zoom: 7, cell: cell)
        }
        for i in 0..<count {
            f.load(cell: cell, zoom: 7)
            guard let p = f.position(i, zoom: 7) else { continue }
            var taken = NeighbourGrid.Found(capacity: 4)
            defer { taken.deallocate() }
            _ = f.grid.take(position: Int(p), x: f.xs[i], y: f.ys[i], r2: r * r, into: &taken)
            let found = Set(UnsafeBufferPointer(start: taken.refs, count: taken.count).map(Int.init))
            let expected = Set((0..<count).filter { j in
                let dx = f.xs[j] - f.xs[i], dy = f.ys[j] - f.ys[i]
                return j != i && dx * dx + dy * dy <= r * r
            })
            #expect(found == expected, "item \(i)")
        }
    }

    @Test(arguments: [1, 2, 100, 3000])
    func gridFindsNeighboursAndIsolatedItems(count: Int) {
        let xy = Self.points(count, seed: 99 + UInt64(count))
        let f = GridFixture(xy: xy)
        for (zoom, r) in [(9, 1e-4), (4, 0.003), (0, 0.05)] {
            let cell = r * (1 + 1e-9) + 0x1p-23
            f.load(cell: cell, zoom: zoom)
            for i in 0..<count {
                f.expectIsolation(i, zoom: zoom, cell: cell)
            }
            // Taking from one item finds exactly the items within r of it; taken items are not found again.
            for i in stride(from: 0, to: count, by: Swift.max(1, count / 50)) {
                f.load(cell: cell, zoom: zoom)
                guard let p = f.position(i, zoom: zoom) else { continue }
                var taken = NeighbourGrid.Found(capacity: 1)   // grows as it must
                defer { taken.deallocate() }
                let qx = f.xs[i], qy = f.ys[i]
                let weight = f.grid.take(position: Int(p), x: qx, y: qy, r2: r * r, into: &taken)
                let found = Array(UnsafeBufferPointer(start: taken.refs, count: taken.count))
                let positions = Array(UnsafeBufferPointer(start: taken.positions, count: taken.count))
                #expect(weight == found.count)
                #expect(positions.map { f.grid.entry($0).ref } == found)
                taken.removeAll()
                _ = f.grid.take(position: Int(p), x: qx, y: qy, r2: r * r, into: &taken)
                #expect(taken.isEmpty)
                let expected = (0..<count).filter { j in
                    let dx = f.xs[j] - qx, dy = f.ys[j] - qy
                    return j != i && dx * dx + dy * dy <= r * r
                }
                #expect(Set(found.map(Int.init)) == Set(expected) && found.count == expected.count)
            }
        }
    }

    /// The next zoom's grid, made by merging columns, drops merged items, takes in new ones, and
    /// answers like a grid loaded from scratch with the same items.
    @Test func nextGridAnswersLikeAFreshOne() {
        let count = 4000
        let xy = Self.points(count + 300, seed: 7)
        // Refs count..<count + 300 play the new clusters.
        let f = GridFixture(xy: Array(xy[0..<2 * count]))
        var r = 2e-4
        var present = Set(0..<count)
        var rng = SeededRandom(seed: 11)
        var nextNew = count
        for zoom in stride(from: 12, through: 8, by: -1) {
            if zoom == 12 { f.load(cell: r * (1 + 1e-9) + 0x1p-23, zoom: zoom) }
            // Merge away a tenth of the items; add a few new ones.
            var byRef: [Int: Int32] = [:]
            for p in 0..<f.grid.count { byRef[Int(f.grid.entry(Int32(p)).ref)] = Int32(p) }
            var merged: [Int] = []
            for ref in present.sorted() where rng.next() % 10 == 0 { merged.append(ref) }
            for ref in merged {
                f.grid.markMerged(byRef[ref]!)
                f.grid.noteMerged(count: 1) { _ in byRef[ref]! }
                present.remove(ref)
            }
            var added: [NeighbourGrid.Added] = []
            for _ in 0..<40 where nextNew < count + 300 {
                added.append(.init(ref: Int32(nextNew), x: Float(xy[2 * nextNew]), y: Float(xy[2 * nextNew + 1]), weight: 1))
                present.insert(nextNew)
                nextNew += 1
            }
            r *= 2
            let cell = r * (1 + 1e-9) + 0x1p-23
            var slot = [Int32](repeating: -1, count: count + 300)
            slot.withUnsafeMutableBufferPointer { f.grid.next(cell: cell, zoom: zoom - 1, added: added, slot: $0.baseAddress!) }
            #expect(f.grid.count == present.count)
            // The same items loaded afresh (as points 0..<k, in the order of their refs).
            let kept = present.sorted()
            let fresh = GridFixture(xy: kept.flatMap { [xy[2 * $0], xy[2 * $0 + 1]] })
            fresh.load(cell: cell, zoom: zoom - 1)
            for (k, ref) in kept.enumerated() {
                #expect((NeighbourGrid.position(slot: slot[ref], zoom: zoom - 1) == nil) == (fresh.position(k, zoom: zoom - 1) == nil))
            }
            // In the same places: by column, then y (these points share no y within a column).
            #expect(f.grid.refsInOrder() == fresh.grid.refsInOrder().map { Int32(kept[Int($0)]) })
        }
    }

    @Test func radixSortIsAStableSort() {
        var rng = SeededRandom(seed: 3)
        // Few distinct high digits, so that some passes are skipped, and many equal keys; keys that
        // differ only from part to part of a large sort (each part's own keys all equal: a digit
        // is skipped only when every part shares it too); keys all equal (nothing moves).
        // Keys over many bits, for the top digit first (`sortTopDigitFirst`): its runs hold one
        // pair, many, or none; and keys differing only in the low 11 bits, which it leaves to `sort`.
        let cases: [(Int) -> [UInt64]] = [
            { n in (0..<n).map { _ in (rng.next() % 7) << 40 | (rng.next() % 50) } },
            { n in (0..<n).map { UInt64(7 - 8 * $0 / Swift.max(n, 1)) << 24 | 5 } },
            { n in [UInt64](repeating: 3 << 50, count: n) },
            { n in (0..<n).map { _ in rng.next() >> UInt64(rng.next() % 40) } },
            { n in (0..<n).map { _ in (rng.next() % 300) << 33 | (rng.next() % 3) << 17 | rng.next() % 1000 } },
            { n in (0..<n).map { _ in rng.next() % 2000 } },
        ]
        let sizes = [0, 1, 2, 17, 5000, 200_000]   // 200k: in parts (`inParts`)
        for (topFirstFrom, (n, keysFor)) in [Int.max, 2].flatMap({ t in sizes.flatMap { n in cases.map { (t, (n, $0)) } } }) {
            let keys = keysFor(n)
            var k = keys + keys, v = (0..<Int32(n)).map { $0 } + (0..<Int32(n)).map { $0 }
            let sorted = k.withUnsafeMutableBufferPointer { kp in
                v.withUnsafeMutableBufferPointer { vp in
                    let r = RadixSort.$topDigitFirstFrom.withValue(topFirstFrom) {
                        RadixSort.sort(keys: kp.baseAddress!, values: vp.baseAddress!, scratchKeys: kp.baseAddress! + n,
                                       scratchValues: vp.baseAddress! + n, count: n)
                    }
                    return (0..<n).map { (r.keys[$0], r.values[$0]) }
                }
            }
            let expected = keys.enumerated().sorted { $0.element != $1.element ? $0.element < $1.element : $0.offset < $1.offset }
            // The first pair out of place (comparing whole arrays would print a diff of 200k values).
            let wrong = sorted.indices.first { sorted[$0].0 != expected[$0].element || sorted[$0].1 != Int32(expected[$0].offset) }
            #expect(wrong == nil, "n \(n), top digit first from \(topFirstFrom): pair \(wrong ?? 0) is \(wrong.map { sorted[$0] } as Any)")
        }
    }

    /// The grid compares positions as bits: for a non-negative Float y, `Double(y) >= low` and
    /// `Double(y) <= high` exactly when its bits are at least `bits(atLeast: low)` and at most
    /// `bits(atMost: high)`; checked on bounds at, between and beside Floats, at 0 and below it.
    @Test func boundsAsBitsCompareAsTheDoublesDo() {
        var rng = SeededRandom(seed: 11)
        var bounds: [Double] = [0, -0.0, -1e-9, -2, 1, 1.5, Double(Float.leastNonzeroMagnitude), 1e-300]
        var values: [Float] = [0, .leastNonzeroMagnitude, .leastNormalMagnitude, 1, Float(1).nextDown, 0.5, 2]
        for _ in 0..<400 {
            let f = Float(Double.random(in: 0...1, using: &rng) * pow(2, -Double(Int.random(in: 0...30, using: &rng))))
            values += [f, f.nextUp, f.nextDown < 0 ? 0 : f.nextDown]
            let d = Double(f)
            // The bound on the Float itself, half-way to its neighbours, and a hair either side.
            bounds += [d, (d + Double(f.nextUp)) / 2, d.nextUp, d.nextDown, d - 1e-7, d + 3e-8]
        }
        for bound in bounds {
            let atLeast = NeighbourGrid.bits(atLeast: bound), atMost = NeighbourGrid.bits(atMost: max(bound, 0))
            for y in values.prefix(40) + values.shuffled(using: &rng).prefix(40) {
                #expect((y.bitPattern >= atLeast) == (Double(y) >= bound), "y \(y) low \(bound)")
                #expect((y.bitPattern <= atMost) == (Double(y) <= max(bound, 0)), "y \(y) high \(bound)")
            }
            // Against the Floats right at the bound too.
            let f = Float(max(bound, 0))
            for y in [f, f.nextUp, f.nextDown].filter({ $0 >= 0 }) {
                #expect((y.bitPattern >= atLeast) == (Double(y) >= bound), "y \(y) low \(bound)")
                #expect((y.bitPattern <= atMost) == (Double(y) <= max(bound, 0)), "y \(y) high \(bound)")
            }
        }
    }

    /// The sweep's bounds made in Float arithmetic (`bits(around:within:)`) hold every Float
    /// within the distance (the exact bounds, `bits(atLeast:)` and `bits(atMost:)`), and reach at
    /// most four Float steps (at the scale of the value and the distance) past them: over values
    /// and distances across many binades, values near 0 (the lower bound clamped), and distances
    /// a hair either side of Floats.
    @Test func floatBoundsHoldTheExactOnes() {
        var rng = SeededRandom(seed: 29)
        var cases: [(Float, Double)] = [(0, 0.001), (0.001, 0.001), (1, 0.3), (0.5, 0.5), (Float(0.5).nextDown, 0.25)]
        for _ in 0..<4000 {
            let v = Float(Double.random(in: 0...1, using: &rng) * pow(2, -Double(Int.random(in: 0...20, using: &rng))))
            var d = Double.random(in: 0...1, using: &rng) * pow(2, -Double(Int.random(in: 2...26, using: &rng)))
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: d = Double(Float(d))   // a Float: rounding it up changes nothing
            case 1: d = Double(Float(d)) * (1 + (Bool.random(using: &rng) ? 1e-12 : -1e-12))
            default: break
            }
            cases.append((v, max(d, 0)))
        }
        for (v, d) in cases {
            let up = NeighbourGrid.roundedUp(d)
            #expect(Double(up) >= d && Double(up.nextDown) < d || d == 0, "rounded up \(d)")
            let bounds = NeighbourGrid.bits(around: v, within: up)
            let low = NeighbourGrid.bits(atLeast: Double(v) - d), high = NeighbourGrid.bits(atMost: Double(v) + d)
            #expect(bounds.low <= low && bounds.high >= high, "v \(v) d \(d)")
            // No wider than a few Floats' steps at the scale of v and d past the exact values
            // (d rounded up, then the sum's rounding).
            let step = Double(max(v, up).ulp)
            #expect(bounds.low == 0 || (Double(v) - d) - Double(Float(bitPattern: bounds.low)) <= 4 * step, "v \(v) d \(d): low")
            #expect(Double(Float(bitPattern: bounds.high)) - (Double(v) + d) <= 4 * step, "v \(v) d \(d): high")
        }
    }
}
