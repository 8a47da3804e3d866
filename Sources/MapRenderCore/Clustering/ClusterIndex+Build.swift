import CPrefetch
import Foundation
extension ClusterIndex {
    /// What building leaves: per level (zoom - lowest built zoom), its items as refs in order (empty
    /// when not retained) and how many there are; per zoom, the refs of the clusters made there.
    struct Built {
        var lists: [[Int32]]
        var counts: [Int]
        var batches: [Range<Int>]
    }

    /// The grid cell for a zoom's radius: wider by more than twice a Float's rounding in [0, 1].
    static func cell(_ options: ClusterOptions, zoom: Int) -> Double {
        options.radius(atZoom: zoom) * (1 + 1e-9) + 0x1p-23
    }

    /// supercluster's `load`: from the points (zoom maxZoom + 1) down to `lowest`, each zoom made
    /// from the one above by a `Pass`. Two buffers of refs take turns as this zoom and the next.
    static func build(items: Items, options: ClusterOptions, operations: [Operation], featureCount: Int,
                      lowest: Int, bitExact: Bool, retainAllZooms: Bool, trees: TreeCache) -> Built {
        let n = items.pointCount
        let levelCount = options.maxZoom + 2 - lowest
        var built = Built(lists: Array(repeating: [], count: levelCount), counts: Array(repeating: 0, count: levelCount),
                          batches: Array(repeating: 0..<0, count: levelCount - 1))
        var list = UnsafeMutablePointer<Int32>.allocate(capacity: Swift.max(n, 1))
        var out = UnsafeMutablePointer<Int32>.allocate(capacity: Swift.max(n, 1))
        let visited = UnsafeMutablePointer<UInt8>.allocate(capacity: items.capacity)
        let slot = UnsafeMutablePointer<Int32>.allocate(capacity: items.capacity)
        let askedIndex = UnsafeMutablePointer<Int32>.allocate(capacity: Swift.max(n, 1))
        let askedSlot = UnsafeMutablePointer<Int32>.allocate(capacity: Swift.max(n, 1))
        defer {
            askedIndex.deallocate()
            askedSlot.deallocate()
            list.deallocate()
            out.deallocate()
            visited.deallocate()
            slot.deallocate()
        }
        for i in 0..<n { list[i] = Int32(i) }
        visited.initialize(repeating: .max, count: items.capacity)
        slot.initialize(repeating: -1, count: items.capacity)
        var count = n
        let grid = bitExact ? nil : NeighbourGrid(capacity: n)
        grid?.load(refs: UnsafeBufferPointer(start: list, count: n), x: items.x, y: items.y, weight: items.weight,
                   cell: cell(options, zoom: options.maxZoom), zoom: options.maxZoom, slot: slot)
        var z = options.maxZoom
        while z >= lowest {
            let level = z + 1 - lowest
            built.counts[level] = count
            let refs = UnsafeBufferPointer(start: list, count: count)
            if retainAllZooms { built.lists[level] = Array(refs) }
            // The level's KD-tree, kept for queries when the level is.
            let levelTree = { () -> KDIndex in
                retainAllZooms ? trees.value(level) { tree(refs: refs, items: items, nodeSize: options.nodeSize) }
                    : tree(refs: refs, items: items, nodeSize: options.nodeSize)
            }
            let pass = Pass(zoom: z, options: options, featureCount: featureCount, operations: operations,
                            items: items, visited: visited)
            let firstCluster = items.count
            let next: Int
            if let grid {
                var added: [NeighbourGrid.Added] = []
                next = pass.cluster(refs, into: out, grid: grid, slot: slot, askedIndex: askedIndex, askedSlot: askedSlot,
                                    added: &added, tree: levelTree)
                if z > lowest { grid.next(cell: cell(options, zoom: z - 1), zoom: z - 1, added: added, slot: slot) }
            } else {
                next = pass.clusterInTreeOrder(refs, into: out, tree: levelTree())
            }
            built.batches[z - lowest] = firstCluster..<items.count
            swap(&list, &out)
            count = next
            z -= 1
        }
        built.counts[0] = count
        built.lists[0] = Array(UnsafeBufferPointer(start: list, count: count))
        return built
    }

    /// A KD-tree over a level's items (by their index in the level).
    static func tree(refs: UnsafeBufferPointer<Int32>, items: Items, nodeSize: Int) -> KDIndex {
        var xy = [Double](repeating: 0, count: 2 * refs.count)
        xy.withUnsafeMutableBufferPointer { xy in
            for (k, ref) in refs.enumerated() {
                xy[2 * k] = items.x[Int(ref)]
                xy[2 * k + 1] = items.y[Int(ref)]
            }
        }
        return xy.withUnsafeBufferPointer { KDIndex(data: $0, stride: 2, count: refs.count, nodeSize: nodeSize) }
    }

    /// One zoom of supercluster's `_cluster`: the items of the zoom above, visited in order, each
    /// one not yet taken taking the untaken items within the radius; a cluster if they make at
    /// least `minPoints` points, else each stays as it is. Writes the zoom's refs to `out` and
    /// returns how many.
    ///
    /// Two ways to the same clusters. `clusterInTreeOrder` is supercluster's own: a KD-tree query
    /// per item, neighbours in the tree's order. `cluster` finds the items with nobody near (most
    /// of them, at high zooms) in one sweep of a grid, and asks the grid about the others; their
    /// neighbours come in the grid's order, which changes only the order in which a centroid is
    /// summed. It builds the KD-tree only where the order decides more: when too few points for
    /// a cluster (`minPoints` > 2) are kept as they are, in the tree's order.
    struct Pass {
        let zoom: Int
        let options: ClusterOptions
        let featureCount: Int
        let operations: [Operation]
        let items: Items
        /// `visited[ref] == zoom`: taken in this pass.
        let visited: UnsafeMutablePointer<UInt8>

        func cluster(_ list: UnsafeBufferPointer<Int32>, into out: UnsafeMutablePointer<Int32>, grid: NeighbourGrid,
                     slot: UnsafePointer<Int32>, askedIndex: UnsafeMutablePointer<Int32>,
                     askedSlot: UnsafeMutablePointer<Int32>, added: inout [NeighbourGrid.Added], tree: () -> KDIndex) -> Int {
            let stamp = UInt8(zoom)
            let r = options.radius(atZoom: zoom), r2 = r * r
            let x = items.x, y = items.y, weight = items.weight
            var neighbours: [Int32] = [], positions: [Int32] = []
            neighbours.reserveCapacity(64)
            positions.reserveCapacity(64)
            var rankByRef: UnsafeMutablePointer<Int32>?
            defer { rankByRef?.deallocate() }
            // The items that are not isolated (an isolated item takes no other and none takes it:
            // it stays as it is, in its place in the order), with their positions in the grid.
            var m = 0
            for (i, item) in list.enumerated() {
                if let p = NeighbourGrid.position(slot: slot[Int(item)], zoom: zoom) {
                    askedIndex[m] = Int32(i)
                    askedSlot[m] = p
                    m += 1
                }
            }
            var o = 0, copied = 0
            for k in 0..<m {
                // They are visited in input order, so their entries lie anywhere in the grid: fetch
                // the entries of those a few steps ahead, then the windows they will read.
                if k + 16 < m { grid.prefetchEntry(askedSlot[k + 16]) }
                if k + 8 < m { grid.prefetchWindows(askedSlot[k + 8]) }
                let i = Int(askedIndex[k]), s = askedSlot[k]
                while copied < i {
                    out[o] = list[copied]
                    o += 1
                    copied += 1
                }
                copied = i + 1
                let item = list[i], ref = Int(item)
                if visited[ref] == stamp { continue }
                visited[ref] = stamp
                neighbours.removeAll(keepingCapacity: true)
                positions.removeAll(keepingCapacity: true)
                // A point's position is its entry's (a Float); a cluster's is only in the store.
                let e = grid.entry(s)
                let sx = ref < items.pointCount ? Double(e.x) : x[ref], sy = ref < items.pointCount ? Double(e.y) : y[ref]
                let total = Int(e.weight) + grid.take(position: Int(s), x: sx, y: sy, r2: r2,
                                                      into: &neighbours, positions: &positions)
                for b in neighbours { visited[Int(b)] = stamp }
                if !neighbours.isEmpty && total >= options.minPoints {
                    let c = merge(seedIndex: i, seed: ref, seedPosition: (sx, sy, Double(e.weight)), neighbours) { k in
                        let e = grid.entry(positions[k])
                        let b = Int(e.ref)
                        return b < items.pointCount ? (Double(e.x), Double(e.y), Double(e.weight)) : (x[b], y[b], Double(e.weight))
                    }
                    grid.markMerged(s)
                    for p in positions { grid.markMerged(p) }
                    out[o] = Int32(c)
                    o += 1
                    added.append(NeighbourGrid.Added(ref: Int32(c), x: Float(x[c]), y: Float(y[c]), weight: weight[c]))
                    continue
                }
                out[o] = item
                o += 1
                if neighbours.count > 1 {
                    // Kept as they are, in supercluster's order: the KD-tree's.
                    if rankByRef == nil {
                        let ranks = tree().traversalRanks()
                        let byRef = UnsafeMutablePointer<Int32>.allocate(capacity: items.capacity)
                        for (k, ref) in list.enumerated() { byRef[Int(ref)] = ranks[k] }
                        rankByRef = byRef
                    }
                    let rank = rankByRef!
                    neighbours.sort { rank[Int($0)] < rank[Int($1)] }
                }
                for b in neighbours {
                    out[o] = b
                    o += 1
                }
            }
            while copied < list.count {
                out[o] = list[copied]
                o += 1
                copied += 1
            }
            return o
        }

        func clusterInTreeOrder(_ list: UnsafeBufferPointer<Int32>, into out: UnsafeMutablePointer<Int32>,
                                tree: KDIndex) -> Int {
            let stamp = UInt8(zoom)
            let r = options.radius(atZoom: zoom)
            var found: [Int32] = [], neighbours: [Int32] = []
            var o = 0
            for (i, item) in list.enumerated() {
                let ref = Int(item)
                if visited[ref] == stamp { continue }
                visited[ref] = stamp
                found.removeAll(keepingCapacity: true)
                neighbours.removeAll(keepingCapacity: true)
                tree.within(x: items.x[ref], y: items.y[ref], radius: r, into: &found)
                var total = Int(items.weight[ref])
                for k in found {
                    let b = list[Int(k)]
                    guard visited[Int(b)] != stamp else { continue }
                    visited[Int(b)] = stamp
                    neighbours.append(b)
                    total += Int(items.weight[Int(b)])
                }
                if !neighbours.isEmpty && total >= options.minPoints {
                    let seedPosition = (items.x[ref], items.y[ref], Double(items.weight[ref]))
                    out[o] = Int32(merge(seedIndex: i, seed: ref, seedPosition: seedPosition, neighbours) { k in
                        let b = Int(neighbours[k])
                        return (items.x[b], items.y[b], Double(items.weight[b]))
                    })
                    o += 1
                    continue
                }
                out[o] = item
                o += 1
                for b in neighbours {
                    out[o] = b
                    o += 1
                }
            }
            return o
        }

        /// The item `seed` (the `seedIndex`th of the zoom above) and its `neighbours` become one
        /// cluster at their count-weighted centroid, summed in supercluster's order (seed first);
        /// returns its ref. `seedPosition` and `neighbour(k)` give the seed's and kth neighbour's
        /// position and weight.
        @inline(__always)
        private func merge(seedIndex i: Int, seed: Int, seedPosition: (x: Double, y: Double, weight: Double), _ neighbours: [Int32],
                           neighbour: (Int) -> (x: Double, y: Double, weight: Double)) -> Int {
            let x = items.x, y = items.y, weight = items.weight, parent = items.parent
            let c = items.count
            items.count += 1
            let a2 = 2 * items.aggregateCount, agg = items.aggregates
            for j in 0..<a2 { agg[c * a2 + j] = agg[seed * a2 + j] }
            let w0 = seedPosition.weight
            var total = w0, wx = seedPosition.x * w0, wy = seedPosition.y * w0
            for (k, b) in neighbours.enumerated() {
                let b = Int(b)
                let (bx, by, w) = neighbour(k)
                wx += bx * w
                wy += by * w
                total += w
                parent[b] = Int32(c)
                for (a, op) in operations.enumerated() {
                    let vb = agg[b * a2 + 2 * a], nb = agg[b * a2 + 2 * a + 1]
                    guard nb > 0 else { continue }
                    let s = c * a2 + 2 * a
                    if agg[s + 1] == 0 {
                        agg[s] = vb
                    } else {
                        switch op {
                        case .sum, .mean: agg[s] += vb
                        case .min: agg[s] = Swift.min(agg[s], vb)
                        case .max: agg[s] = Swift.max(agg[s], vb)
                        }
                    }
                    agg[s + 1] += nb
                }
            }
            parent[seed] = Int32(c)
            x[c] = wx / total
            y[c] = wy / total
            weight[c] = Int32(total)
            parent[c] = -1
            visited[c] = .max
            items.clusterID[c - items.pointCount] = (i << 5) + (zoom + 1) + featureCount
            return c
        }
    }
}
