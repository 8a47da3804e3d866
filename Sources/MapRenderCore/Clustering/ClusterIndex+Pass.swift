import Foundation

extension ClusterIndex {
    /// One zoom of supercluster's `_cluster`: merges the items of the zoom above into the items of
    /// `zoom`, recording in the zoom above each item's parent.
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
        let stride: Int
        let featureCount: Int
        let operations: [Operation]

        /// The merge radius in world units.
        var r: Double { options.radius(atZoom: zoom) }

        /// The grid cell for this zoom's radius: wider by more than twice a Float's rounding in [0, 1].
        var cell: Double { r * (1 + 1e-9) + 0x1p-23 }

        func cluster(_ level: inout Level, grid: inout NeighbourGrid, tree: inout KDIndex?) -> (level: Level, from: [Int32]) {
            let n = level.count
            let stride = self.stride
            let r2 = r * r
            var ranks: [Int32]?
            var seen = [Bool](repeating: false, count: n)
            var neighbours: [Int32] = []
            neighbours.reserveCapacity(64)
            let isolated = grid.isolated, position = grid.position
            var asked: [Int32] = []   // the items that are not isolated, in order
            for i in 0..<n where !isolated[i] { asked.append(Int32(i)) }
            var copied = 0
            let result = Output.writing(count: n, stride: stride) { out in
            level.data.withUnsafeMutableBufferPointer { d in
                seen.withUnsafeMutableBufferPointer { seen in
                    position.withUnsafeBufferPointer { position in
                        for item in asked {
                            let i = Int(item)
                            // Isolated items before i stay as they are (no other item takes them).
                            while copied < i {
                                if isolated[copied] { out.copy(d, copied) }
                                copied += 1
                            }
                            copied = i + 1
                            if seen[i] { continue }
                            seen[i] = true
                            neighbours.removeAll(keepingCapacity: true)
                            let k = i * stride
                            // Every untaken neighbour is taken now: by a cluster, or kept as it is.
                            grid.take(position: Int(position[i]), x: d[k + Slot.x], y: d[k + Slot.y], r2: r2,
                                      into: &neighbours)
                            if neighbours.count > 1 && !formsCluster(d, i, neighbours) {
                                // Kept as they are, in supercluster's order: the KD-tree's.
                                if ranks == nil {
                                    let t = KDIndex(data: UnsafeBufferPointer(d), stride: stride, count: n,
                                                    nodeSize: options.nodeSize)
                                    ranks = t.traversalRanks()
                                    tree = t
                                }
                                neighbours.sort { ranks![Int($0)] < ranks![Int($1)] }
                            }
                            merge(d, seen, i, neighbours, &out)
                        }
                        while copied < n {
                            if isolated[copied] { out.copy(d, copied) }
                            copied += 1
                        }
                    }
                }
            }
            }
            level.down = result.down
            return (result.level, result.from)
        }

        func clusterInTreeOrder(_ level: inout Level, tree: KDIndex) -> Level {
            let n = level.count
            let stride = self.stride
            let r = self.r
            var visited = [Bool](repeating: false, count: n)
            var found: [Int32] = [], neighbours: [Int32] = []
            let result = Output.writing(count: n, stride: stride) { out in
            level.data.withUnsafeMutableBufferPointer { d in
                visited.withUnsafeMutableBufferPointer { seen in
                    for i in 0..<n where !seen[i] {
                        seen[i] = true
                        found.removeAll(keepingCapacity: true)
                        neighbours.removeAll(keepingCapacity: true)
                        tree.within(x: d[i * stride + Slot.x], y: d[i * stride + Slot.y], radius: r, into: &found)
                        for b in found where !seen[Int(b)] { neighbours.append(b) }
                        merge(d, seen, i, neighbours, &out)
                    }
                }
            }
            }
            level.down = result.down
            return result.level
        }

        /// Whether item `i` and its untaken neighbours make a cluster.
        @inline(__always)
        private func formsCluster(_ d: UnsafeMutableBufferPointer<Double>, _ i: Int, _ neighbours: [Int32]) -> Bool {
            var count = d[i * stride + Slot.count]
            for b in neighbours { count += d[Int(b) * stride + Slot.count] }
            return !neighbours.isEmpty && count >= Double(options.minPoints)
        }

        /// Item `i` takes its untaken `neighbours`: one cluster at their weighted centroid if they
        /// are enough, else each of them as it was (`i` first).
        private func merge(_ d: UnsafeMutableBufferPointer<Double>, _ seen: UnsafeMutableBufferPointer<Bool>,
                           _ i: Int, _ neighbours: [Int32], _ out: inout Output) {
            let k = i * stride
            guard formsCluster(d, i, neighbours) else {
                out.copy(d, i)
                for b in neighbours {
                    seen[Int(b)] = true
                    out.copy(d, Int(b))
                }
                return
            }
            let originCount = d[k + Slot.count]
            var count = originCount
            var wx = d[k + Slot.x] * originCount, wy = d[k + Slot.y] * originCount
            let id = Double((i << 5) + (zoom + 1) + featureCount)
            let newIndex = Int32(out.count)
            let dst = out.append()
            out.down[i] = newIndex
            for j in Slot.firstAggregate..<stride { out.data[dst + j] = d[k + j] }
            for b in neighbours {
                let kb = Int(b) * stride
                seen[Int(b)] = true
                out.down[Int(b)] = newIndex
                let c = d[kb + Slot.count]
                wx += d[kb + Slot.x] * c
                wy += d[kb + Slot.y] * c
                count += c
                d[kb + Slot.parent] = id
                for (a, op) in operations.enumerated() {
                    let s = Slot.firstAggregate + 2 * a
                    let vb = d[kb + s], nb = d[kb + s + 1]
                    guard nb > 0 else { continue }
                    let na = out.data[dst + s + 1]
                    if na == 0 {
                        out.data[dst + s] = vb
                    } else {
                        switch op {
                        case .sum, .mean: out.data[dst + s] += vb
                        case .min: out.data[dst + s] = Swift.min(out.data[dst + s], vb)
                        case .max: out.data[dst + s] = Swift.max(out.data[dst + s], vb)
                        }
                    }
                    out.data[dst + s + 1] = na + nb
                }
            }
            d[k + Slot.parent] = id
            out.data[dst + Slot.x] = wx / count
            out.data[dst + Slot.y] = wy / count
            out.data[dst + Slot.id] = id
            out.data[dst + Slot.parent] = -1
            out.data[dst + Slot.count] = count
        }
    }

    /// The next zoom's items, written through pointers into buffers as large as the zoom above
    /// (no copy-on-write check per write: that cost about a tenth of a pass), and for each, the item
    /// of the zoom above it was copied from (-1 for a new cluster).
    struct Output {
        let data: UnsafeMutableBufferPointer<Double>
        let from: UnsafeMutableBufferPointer<Int32>
        /// For each item of the zoom above, the index of the item that holds it here.
        let down: UnsafeMutableBufferPointer<Int32>
        var count = 0
        let stride: Int

        /// Runs `body` with an Output over new buffers for up to `capacity` items; returns the next
        /// zoom's items, `from`, and the `down` links of the zoom above.
        static func writing(count capacity: Int, stride: Int,
                            _ body: (inout Output) -> Void) -> (level: Level, from: [Int32], down: [Int32]) {
            var written = 0
            var from = [Int32](unsafeUninitializedCapacity: capacity) { _, n in n = capacity }
            var down = [Int32](unsafeUninitializedCapacity: capacity) { _, n in n = capacity }
            // Every number of every written item is set before it is read.
            let data = [Double](unsafeUninitializedCapacity: capacity * stride) { buffer, initialized in
                from.withUnsafeMutableBufferPointer { f in
                    down.withUnsafeMutableBufferPointer { d in
                        var out = Output(data: buffer, from: f, down: d, stride: stride)
                        body(&out)
                        written = out.count
                    }
                }
                initialized = written * stride
            }
            from.removeSubrange(written...)
            return (Level(data: data, count: written), from, down)
        }

        /// Appends an item (a new cluster) whose numbers the caller writes, and returns its offset.
        @inline(__always)
        mutating func append() -> Int {
            from[count] = -1
            count += 1
            return (count - 1) * stride
        }

        @inline(__always)
        mutating func copy(_ d: UnsafeMutableBufferPointer<Double>, _ i: Int) {
            let src = i * stride, dst = count * stride
            from[count] = Int32(i)
            down[i] = Int32(count)
            count += 1
            for j in 0..<stride { data[dst + j] = d[src + j] }
        }
    }
}
