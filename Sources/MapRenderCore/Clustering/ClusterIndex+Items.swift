extension ClusterIndex {
    /// Every item of every zoom, each stored once under its ref: refs `0..<n` are the points in
    /// input order, then each cluster in the order it was made (so a cluster's ref is larger than
    /// those of the items it took). A zoom is a list of refs; an item that stays as it is from one
    /// zoom to the next costs that zoom 4 bytes, not a copy of its numbers.
    ///
    /// Flat buffers, one number per ref each, allocated for the most refs there can be (2n - 1:
    /// every cluster takes at least two items) and filled as clusters are made; pages never
    /// written cost no memory. Immutable once the index is built, and then shared by its copies.
    final class Items: @unchecked Sendable {
        let pointCount: Int
        let capacity: Int
        let aggregateCount: Int
        /// Refs in use.
        var count: Int
        /// Positions in Mercator [0, 1], x then y per ref (side by side: one cache line for both):
        /// a point's rounded to `Float`, a cluster's centroid.
        let xy: UnsafeMutablePointer<Double>
        /// Points it stands for.
        let weight: UnsafeMutablePointer<Int32>
        /// The ref of the cluster that took it, or -1.
        let parent: UnsafeMutablePointer<Int32>
        /// A cluster's `cluster_id`, at `ref - pointCount`.
        let clusterID: UnsafeMutablePointer<Int>
        /// Per ref and aggregate: the reduced value, and how many points had a value.
        let aggregates: UnsafeMutablePointer<Double>

        init(pointCount n: Int, aggregateCount: Int) {
            pointCount = n
            capacity = Swift.max(2 * n - 1, 1)
            self.aggregateCount = aggregateCount
            count = n
            xy = .allocate(capacity: 2 * capacity)
            weight = .allocate(capacity: capacity)
            parent = .allocate(capacity: capacity)
            clusterID = .allocate(capacity: Swift.max(capacity - n, 1))
            aggregates = .allocate(capacity: Swift.max(capacity * 2 * aggregateCount, 1))
            weight.initialize(repeating: 1, count: n)
            parent.initialize(repeating: -1, count: n)
            aggregates.initialize(repeating: 0, count: n * 2 * aggregateCount)
        }

        deinit {
            xy.deallocate()
            weight.deallocate()
            parent.deallocate()
            clusterID.deallocate()
            aggregates.deallocate()
        }

        @inline(__always)
        func isCluster(_ ref: Int) -> Bool { ref >= pointCount }

        @inline(__always)
        func x(_ ref: Int) -> Double { xy[2 * ref] }

        @inline(__always)
        func y(_ ref: Int) -> Double { xy[2 * ref + 1] }

        /// The cluster whose `cluster_id` is `id`, among the clusters `refs` (made at one zoom,
        /// so in increasing id order).
        func ref(ofCluster id: Int, in refs: Range<Int>) -> Int? {
            var lo = refs.lowerBound, hi = refs.upperBound
            while lo < hi {
                let mid = (lo + hi) / 2
                if clusterID[mid - pointCount] < id { lo = mid + 1 } else { hi = mid }
            }
            return lo < refs.upperBound && clusterID[lo - pointCount] == id ? lo : nil
        }
    }
}
