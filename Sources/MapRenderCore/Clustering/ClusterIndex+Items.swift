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
        /// Points' positions in Mercator [0, 1], x then y per ref: supercluster rounds them to
        /// `Float`, so `Float`s hold them exactly.
        let pointXY: UnsafeMutablePointer<Float>
        /// Clusters' centroids, x then y, at `ref - pointCount`.
        let clusterXY: UnsafeMutablePointer<Double>
        /// Points a cluster stands for, at `ref - pointCount` (a point stands for one).
        let clusterWeight: UnsafeMutablePointer<Int32>
        /// The ref of the cluster that took it, or -1.
        let parent: UnsafeMutablePointer<Int32>
        /// A cluster's `cluster_id` less `idOffset` (supercluster's `points.length`), at
        /// `ref - pointCount`: (index of its seed in the zoom above) << 5 + zoom + 1, below 2^31
        /// since a zoom holds fewer than 2^26 items, so 4 bytes instead of 8.
        let clusterID: UnsafeMutablePointer<UInt32>
        /// Added to a stored `clusterID` to give the `cluster_id`.
        let idOffset: Int
        /// Per ref and aggregate: the reduced value, and how many points had a value.
        let aggregates: UnsafeMutablePointer<Double>

        init(pointCount n: Int, aggregateCount: Int, idOffset: Int) {
            pointCount = n
            self.idOffset = idOffset
            capacity = Swift.max(2 * n - 1, 1)
            self.aggregateCount = aggregateCount
            count = n
            let clusters = Swift.max(capacity - n, 1)
            pointXY = .allocate(capacity: Swift.max(2 * n, 1))
            clusterXY = .allocate(capacity: 2 * clusters)
            clusterWeight = .allocate(capacity: clusters)
            parent = .allocate(capacity: capacity)
            clusterID = .allocate(capacity: clusters)
            aggregates = .allocate(capacity: Swift.max(capacity * 2 * aggregateCount, 1))
            // On both cores: the first touch of fresh memory is most of the cost (10M points: 40 MB
            // of parents, ~80 ms of the kernel zeroing pages on one thread).
            let parent = self.parent, aggregates = self.aggregates, a2 = 2 * aggregateCount
            inParts(n) { range in
                (parent + range.lowerBound).initialize(repeating: -1, count: range.count)
                (aggregates + range.lowerBound * a2).initialize(repeating: 0, count: range.count * a2)
            }
        }

        deinit {
            pointXY.deallocate()
            clusterXY.deallocate()
            clusterWeight.deallocate()
            parent.deallocate()
            clusterID.deallocate()
            aggregates.deallocate()
        }

        @inline(__always)
        func isCluster(_ ref: Int) -> Bool { ref >= pointCount }

        @inline(__always)
        func x(_ ref: Int) -> Double { ref < pointCount ? Double(pointXY[2 * ref]) : clusterXY[2 * (ref - pointCount)] }

        @inline(__always)
        func y(_ ref: Int) -> Double { ref < pointCount ? Double(pointXY[2 * ref + 1]) : clusterXY[2 * (ref - pointCount) + 1] }

        @inline(__always)
        func weight(_ ref: Int) -> Int32 { ref < pointCount ? 1 : clusterWeight[ref - pointCount] }

        /// Sets a new cluster's centroid and weight.
        @inline(__always)
        func setCluster(_ ref: Int, x: Double, y: Double, weight: Int32) {
            clusterXY[2 * (ref - pointCount)] = x
            clusterXY[2 * (ref - pointCount) + 1] = y
            clusterWeight[ref - pointCount] = weight
        }

        /// The cluster whose `cluster_id` is `id`, among the clusters `refs` (made at one zoom,
        /// so in increasing id order).
        func ref(ofCluster id: Int, in refs: Range<Int>) -> Int? {
            let lo = partitionPoint(refs) { Int(clusterID[$0 - pointCount]) + idOffset >= id }
            return lo < refs.upperBound && Int(clusterID[lo - pointCount]) + idOffset == id ? lo : nil
        }
    }
}
