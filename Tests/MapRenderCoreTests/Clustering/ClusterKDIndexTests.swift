import Foundation
import Testing
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

    @Test(arguments: [1, 2, 100, 3000])
    func gridFindsNeighboursAndIsolatedItems(count: Int) {
        let xy = Self.points(count, seed: 99 + UInt64(count)).map(Float.init)
        for r in [1e-4, 0.003, 0.05] {
            let cell = r * (1 + 1e-9) + 0x1p-23
            let grid = xy.withUnsafeBufferPointer { NeighbourGrid(xy: $0, cell: cell) }
            for i in 0..<count {
                let near = (0..<count).filter { j in
                    j != i && abs(Double(xy[2 * j]) - Double(xy[2 * i])) <= cell
                        && abs(Double(xy[2 * j + 1]) - Double(xy[2 * i + 1])) <= cell
                }
                #expect(grid.isolated[i] == near.isEmpty)
            }
            // Taking from one item finds exactly the items within r of it; taken items are not found again.
            for i in stride(from: 0, to: count, by: Swift.max(1, count / 50)) where !grid.isolated[i] {
                var fresh = grid
                var found: [Int32] = []
                let qx = Double(xy[2 * i]), qy = Double(xy[2 * i + 1])
                fresh.take(position: Int(grid.position[i]), x: qx, y: qy, r2: r * r, into: &found)
                var again: [Int32] = []
                fresh.take(position: Int(grid.position[i]), x: qx, y: qy, r2: r * r, into: &again)
                #expect(again.isEmpty)
                let expected = (0..<count).filter { j in
                    let dx = Double(xy[2 * j]) - qx, dy = Double(xy[2 * j + 1]) - qy
                    return j != i && dx * dx + dy * dy <= r * r
                }
                #expect(Set(found.map(Int.init)) == Set(expected) && found.count == expected.count)
            }
        }
    }
}
