import Foundation

/// Clusters of points for every zoom, as mapbox/supercluster v8 makes them.
///
/// Same points, same order and same options give the same clusters as supercluster: the same
/// members, `cluster_id`s, counts, centroids and result order, so a static map shows what a web
/// map running supercluster shows.
///
/// ```swift
/// let index = ClusterIndex(points: loaded.points, options: ClusterOptions(radius: 60),
///                          aggregates: [.sum(field: "population")], downTo: 3)
/// for item in index.clusters(in: viewport.bounds, zoom: viewport.zoom) {
///     print(item.isCluster ? "\(item.abbreviatedCount) at \(item.lon), \(item.lat)" : "point \(item.pointIndex!)")
/// }
/// ```
///
/// How it is made (supercluster's `load`): every point is projected once to Web Mercator [0, 1]
/// (rounded to `Float`); then for each zoom from `maxZoom` down, the items of the zoom above are
/// visited in order, and each one not yet taken gathers the untaken items within the zoom's
/// radius. If that makes at least `minPoints` points, they become one cluster at their
/// count-weighted centroid; otherwise they all stay as they were. Each zoom's items are kept in a
/// flat array (one run of `stride` numbers per item, read through `Slot` offsets) and a KD-tree.
///
/// A single static map needs only the zooms down to its own: `downTo` stops there, since the
/// clusters at zoom z depend only on the zooms above z.
///
/// - Complexity: building is O(n log n) per zoom level; a query is O(√n + k) for k results.
public struct ClusterIndex: Sendable {
    public let options: ClusterOptions
    public let aggregates: [ClusterAggregate]
    /// supercluster's `points.length`: cluster ids are offset by it.
    public let featureCount: Int
    /// The lowest zoom that was built (`options.minZoom` unless `downTo` asked for less).
    public let lowestBuiltZoom: Int

    /// Offsets of an item's numbers in a level's flat array.
    enum Slot {
        static let x = 0, y = 1
        /// A cluster's id, or a point's index in the PointSet.
        static let id = 2
        /// The id of the cluster that took the item at the zoom below, or -1.
        static let parent = 3
        /// Points it stands for.
        static let count = 4
        /// Then, per aggregate: the reduced value, and how many points had a value.
        static let firstAggregate = 5
    }

    /// Numbers per item.
    let stride: Int
    /// `levels[z - lowestBuiltZoom]` for z in lowestBuiltZoom...maxZoom + 1.
    private let levels: [Level]
    private let pointLon: [Double]
    private let pointLat: [Double]

    struct Level: Sendable {
        var data: [Double]
        var count: Int
        var tree: KDIndex
    }

    private enum Operation: Sendable { case sum, min, max, mean }

    /// Clusters `points` for every zoom from `options.maxZoom + 1` down to `options.minZoom`,
    /// or down to `downTo` only.
    ///
    /// - Parameters:
    ///   - featureCount: how many features supercluster would be given (its `points.length`),
    ///     which offsets every cluster id. Defaults to `points.count`; pass the number of input
    ///     features when some (say, with a null geometry) were left out of `points` but a web map
    ///     loads them all.
    ///   - downTo: the lowest zoom to build. Queries below it are a programming error.
    public init(points: PointSet, options: ClusterOptions = ClusterOptions(),
                aggregates: [ClusterAggregate] = [], featureCount: Int? = nil, downTo: Int? = nil) {
        precondition(options.minZoom >= 0 && options.minZoom <= options.maxZoom && options.maxZoom <= 30,
                     "cluster zooms must satisfy 0 <= minZoom <= maxZoom <= 30")
        precondition(options.radius >= 0 && options.extent > 0, "cluster radius and extent must be positive")
        let n = points.count
        precondition(n < 1 << 26, "supercluster's cluster ids hold at most 2^26 items per zoom")
        self.options = options
        self.aggregates = aggregates
        self.featureCount = Swift.max(featureCount ?? n, n)
        self.lowestBuiltZoom = Swift.max(options.minZoom, Swift.min(downTo ?? options.minZoom, options.maxZoom + 1))
        self.stride = Slot.firstAggregate + 2 * aggregates.count
        self.pointLon = points.lon
        self.pointLat = points.lat

        let stride = self.stride
        var data = [Double](repeating: 0, count: n * stride)
        data.withUnsafeMutableBufferPointer { d in
            for i in 0..<n {
                let k = i * stride
                d[k + Slot.x] = Double(Float(Self.lngX(points.lon[i])))
                d[k + Slot.y] = Double(Float(Self.latY(points.lat[i])))
                d[k + Slot.id] = Double(i)
                d[k + Slot.parent] = -1
                d[k + Slot.count] = 1
            }
            for (a, aggregate) in aggregates.enumerated() {
                guard let c = points.properties.columnIndex(aggregate.field) else { continue }
                let column = points.properties.columns[c]
                for i in 0..<n {
                    guard let v = column[i].numberValue, v.isFinite else { continue }
                    d[i * stride + Slot.firstAggregate + 2 * a] = v
                    d[i * stride + Slot.firstAggregate + 2 * a + 1] = 1
                }
            }
        }
        let operations: [Operation] = aggregates.map {
            switch $0 {
            case .sum: return .sum
            case .min: return .min
            case .max: return .max
            case .mean: return .mean
            }
        }

        var built: [Level] = []
        var level = Level(data: data, count: n, tree: Self.tree(data, n, stride, options.nodeSize))
        data = []
        var neighbours: [Int32] = []
        neighbours.reserveCapacity(256)
        var z = options.maxZoom
        while z >= lowestBuiltZoom {
            let t0 = Date()
            let next = Self.cluster(&level, zoom: z, options: options, stride: stride,
                                    featureCount: self.featureCount, operations: operations,
                                    neighbours: &neighbours)
            built.append(level)
            let t1 = Date()
            level = Level(data: next.data, count: next.count, tree: Self.tree(next.data, next.count, stride, options.nodeSize))
            if ProcessInfo.processInfo.environment["CLUSTER_TIMING"] != nil { print("TIMING z\(z) in \(built.last!.count) out \(next.count) cluster \(t1.timeIntervalSince(t0)) tree \(Date().timeIntervalSince(t1))") }
            z -= 1
        }
        built.append(level)
        self.levels = built.reversed()
    }

    // MARK: - Queries

    /// The clusters and points inside a box at a zoom (supercluster's `getClusters`).
    ///
    /// Longitudes are normalised to [-180, 180]; `west > east` means the box crosses the
    /// antimeridian (the eastern part's items come first); a box 360° wide or more is the whole world.
    /// The zoom is floored and clamped to `minZoom...maxZoom + 1`.
    public func clusters(west: Double, south: Double, east: Double, north: Double, zoom: Double) -> [ClusterItem] {
        var minLng = ((west + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180
        let minLat = Swift.max(-90, Swift.min(90, south))
        var maxLng = east == 180 ? 180
            : ((east + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180
        let maxLat = Swift.max(-90, Swift.min(90, north))

        if east - west >= 360 {
            minLng = -180
            maxLng = 180
        } else if minLng > maxLng {
            return clusters(west: minLng, south: minLat, east: 180, north: maxLat, zoom: zoom)
                + clusters(west: -180, south: minLat, east: maxLng, north: maxLat, zoom: zoom)
        }
        let level = levels[levelIndex(zoom: zoom)]
        var ids: [Int32] = []
        level.tree.range(minX: Self.lngX(minLng), minY: Self.latY(maxLat),
                         maxX: Self.lngX(maxLng), maxY: Self.latY(minLat), into: &ids)
        return ids.map { item(level, Int($0)) }
    }

    /// The clusters and points inside `bounds` (which may cross the antimeridian) at a zoom.
    public func clusters(in bounds: GeoBounds, zoom: Double) -> [ClusterItem] {
        clusters(west: bounds.west, south: bounds.south, east: bounds.east, north: bounds.north, zoom: zoom)
    }

    /// Every cluster and point at a zoom (the whole world: `[-180, -90, 180, 90]`).
    public func clusters(zoom: Double) -> [ClusterItem] {
        clusters(west: -180, south: -90, east: 180, north: 90, zoom: zoom)
    }

    /// How many items (clusters and points) a zoom has.
    public func itemCount(zoom: Double) -> Int {
        levels[levelIndex(zoom: zoom)].count
    }

    /// The clusters and points a cluster splits into at the next zoom (supercluster's `getChildren`),
    /// or nil when there is no such cluster.
    public func children(of clusterID: Int) -> [ClusterItem]? {
        let rel = clusterID - featureCount
        guard rel >= 0 else { return nil }
        let originIndex = rel >> 5, originZoom = rel % 32
        guard originZoom >= lowestBuiltZoom, originZoom <= options.maxZoom + 1 else { return nil }
        let level = levels[originZoom - lowestBuiltZoom]
        guard originIndex < level.count else { return nil }
        let r = options.radius / (options.extent * pow2(originZoom - 1))
        var ids: [Int32] = []
        let result: [ClusterItem] = level.data.withUnsafeBufferPointer { d in
            let k = originIndex * stride
            level.tree.within(x: d[k + Slot.x], y: d[k + Slot.y], radius: r, into: &ids)
            let wanted = Double(clusterID)
            return ids.compactMap { i in
                d[Int(i) * stride + Slot.parent] == wanted ? item(level, Int(i)) : nil
            }
        }
        return result.isEmpty ? nil : result
    }

    /// The points of a cluster, as indexes into the `PointSet` (supercluster's `getLeaves`, whose
    /// `limit` defaults to 10), skipping the first `offset`; nil when there is no such cluster.
    public func leaves(of clusterID: Int, limit: Int = .max, offset: Int = 0) -> [Int]? {
        guard children(of: clusterID) != nil else { return nil }
        var result: [Int] = []
        if limit > 0 { _ = appendLeaves(&result, clusterID, limit, offset, 0) }
        return result
    }

    /// The zoom at which a cluster splits into more than one item (supercluster's
    /// `getClusterExpansionZoom`), or nil when there is no such cluster.
    public func expansionZoom(of clusterID: Int) -> Int? {
        guard children(of: clusterID) != nil else { return nil }
        var zoom = (clusterID - featureCount) % 32 - 1
        var id = clusterID
        while zoom <= options.maxZoom {
            guard let children = children(of: id) else { break }
            zoom += 1
            if children.count != 1 || !children[0].isCluster { break }
            id = children[0].id
        }
        return zoom
    }

    /// Items of one tile with their positions in tile pixels (supercluster's `getTile`), including
    /// those within the radius beyond its edges and, at the world's edges, those wrapped around.
    func tile(z: Int, x: Int, y: Int) -> [(item: ClusterItem, x: Int, y: Int)] {
        let level = levels[levelIndex(zoom: Double(z))]
        let z2 = pow2(z)
        let p = options.radius / options.extent
        let top = (Double(y) - p) / z2
        let bottom = (Double(y) + 1 + p) / z2
        var out: [(item: ClusterItem, x: Int, y: Int)] = []
        func add(_ minX: Double, _ maxX: Double, _ tx: Double) {
            var ids: [Int32] = []
            level.tree.range(minX: minX, minY: top, maxX: maxX, maxY: bottom, into: &ids)
            for i in ids {
                let it = item(level, Int(i))
                var px = it.x, py = it.y
                if let pi = it.pointIndex {
                    px = Self.lngX(pointLon[pi])
                    py = Self.latY(pointLat[pi])
                }
                out.append((it, Int(jsRound(options.extent * (px * z2 - tx))),
                            Int(jsRound(options.extent * (py * z2 - Double(y))))))
            }
        }
        add((Double(x) - p) / z2, (Double(x) + 1 + p) / z2, Double(x))
        if x == 0 { add(1 - p / z2, 1, z2) }
        if Double(x) == z2 - 1 { add(0, p / z2, -1) }
        return out
    }

    // MARK: - Private

    private func appendLeaves(_ result: inout [Int], _ clusterID: Int, _ limit: Int, _ offset: Int, _ skippedIn: Int) -> Int {
        var skipped = skippedIn
        guard let children = children(of: clusterID) else { return skipped }
        for child in children {
            if child.isCluster {
                if skipped + child.count <= offset {
                    skipped += child.count
                } else {
                    skipped = appendLeaves(&result, child.id, limit, offset, skipped)
                }
            } else if skipped < offset {
                skipped += 1
            } else {
                result.append(child.pointIndex!)
            }
            if result.count == limit { break }
        }
        return skipped
    }

    /// supercluster's `_limitZoom`: floored, clamped to minZoom...maxZoom + 1.
    private func levelIndex(zoom: Double) -> Int {
        precondition(!zoom.isNaN, "zoom is NaN")
        let f = zoom.rounded(.down)
        let z = f >= Double(options.maxZoom + 1) ? options.maxZoom + 1 : f <= Double(options.minZoom) ? options.minZoom : Int(f)
        precondition(z >= lowestBuiltZoom, "zoom \(z) is below the lowest zoom built (\(lowestBuiltZoom))")
        return z - lowestBuiltZoom
    }

    private func item(_ level: Level, _ i: Int) -> ClusterItem {
        level.data.withUnsafeBufferPointer { d in
            let k = i * stride
            let count = Int(d[k + Slot.count])
            var values: [String: Double] = [:]
            for (a, aggregate) in aggregates.enumerated() {
                let v = d[k + Slot.firstAggregate + 2 * a], n = d[k + Slot.firstAggregate + 2 * a + 1]
                guard n > 0 else { continue }
                if case .mean = aggregate { values[aggregate.propertyName] = v / n } else { values[aggregate.propertyName] = v }
            }
            if count > 1 {
                let x = d[k + Slot.x], y = d[k + Slot.y]
                return ClusterItem(id: Int(d[k + Slot.id]), pointIndex: nil, count: count, x: x, y: y,
                                   lon: Self.xLng(x), lat: Self.yLat(y), aggregates: values)
            }
            let p = Int(d[k + Slot.id])
            return ClusterItem(id: p, pointIndex: p, count: 1, x: d[k + Slot.x], y: d[k + Slot.y],
                               lon: pointLon[p], lat: pointLat[p], aggregates: values)
        }
    }

    private static func tree(_ data: [Double], _ count: Int, _ stride: Int, _ nodeSize: Int) -> KDIndex {
        data.withUnsafeBufferPointer { KDIndex(data: $0, stride: stride, count: count, nodeSize: nodeSize) }
    }

    /// One zoom of supercluster's `_cluster`: merges the items of `level` (the zoom above),
    /// recording in it each item's parent, and returns the items of `zoom`.
    private static func cluster(_ level: inout Level, zoom: Int, options: ClusterOptions, stride: Int,
                                featureCount: Int, operations: [Operation],
                                neighbours: inout [Int32]) -> (data: [Double], count: Int) {
        let n = level.count
        let r = options.radius(atZoom: zoom)
        let minPoints = Double(options.minPoints)
        let tree = level.tree
        var visited = [Bool](repeating: false, count: n)
        var next = [Double](repeating: 0, count: n * stride)
        var m = 0
        level.data.withUnsafeMutableBufferPointer { d in
            visited.withUnsafeMutableBufferPointer { seen in
                next.withUnsafeMutableBufferPointer { out in
                    func copy(_ i: Int) {
                        let src = i * stride, dst = m * stride
                        for j in 0..<stride { out[dst + j] = d[src + j] }
                        m += 1
                    }
                    for i in 0..<n where !seen[i] {
                        seen[i] = true
                        let k = i * stride
                        let x = d[k + Slot.x], y = d[k + Slot.y]
                        neighbours.removeAll(keepingCapacity: true)
                        tree.within(x: x, y: y, radius: r, into: &neighbours)

                        let originCount = d[k + Slot.count]
                        var count = originCount
                        for b in neighbours where !seen[Int(b)] { count += d[Int(b) * stride + Slot.count] }

                        if count > originCount && count >= minPoints {
                            var wx = x * originCount, wy = y * originCount
                            let id = Double((i << 5) + (zoom + 1) + featureCount)
                            let dst = m * stride
                            for j in Slot.firstAggregate..<stride { out[dst + j] = d[k + j] }
                            for b in neighbours where !seen[Int(b)] {
                                let kb = Int(b) * stride
                                seen[Int(b)] = true
                                let c = d[kb + Slot.count]
                                wx += d[kb + Slot.x] * c
                                wy += d[kb + Slot.y] * c
                                d[kb + Slot.parent] = id
                                for (a, op) in operations.enumerated() {
                                    let s = Slot.firstAggregate + 2 * a
                                    let vb = d[kb + s], nb = d[kb + s + 1]
                                    guard nb > 0 else { continue }
                                    let na = out[dst + s + 1]
                                    if na == 0 {
                                        out[dst + s] = vb
                                    } else {
                                        switch op {
                                        case .sum, .mean: out[dst + s] += vb
                                        case .min: out[dst + s] = Swift.min(out[dst + s], vb)
                                        case .max: out[dst + s] = Swift.max(out[dst + s], vb)
                                        }
                                    }
                                    out[dst + s + 1] = na + nb
                                }
                            }
                            d[k + Slot.parent] = id
                            out[dst + Slot.x] = wx / count
                            out[dst + Slot.y] = wy / count
                            out[dst + Slot.id] = id
                            out[dst + Slot.parent] = -1
                            out[dst + Slot.count] = count
                            m += 1
                        } else {
                            copy(i)
                            if count > originCount {
                                for b in neighbours where !seen[Int(b)] {
                                    seen[Int(b)] = true
                                    copy(Int(b))
                                }
                            }
                        }
                    }
                }
            }
        }
        next.removeSubrange((m * stride)...)
        return (next, m)
    }

    // MARK: - Projection, exactly as supercluster computes it

    /// Longitude → Mercator x in [0, 1].
    @inline(__always)
    static func lngX(_ lng: Double) -> Double { lng / 360 + 0.5 }

    /// Latitude → Mercator y in [0, 1] (north at 0), clamped to the square world.
    @inline(__always)
    static func latY(_ lat: Double) -> Double {
        let s = sin(lat * Double.pi / 180)
        let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / Double.pi
        return y < 0 ? 0 : y > 1 ? 1 : y
    }

    @inline(__always)
    static func xLng(_ x: Double) -> Double { (x - 0.5) * 360 }

    @inline(__always)
    static func yLat(_ y: Double) -> Double {
        let y2 = (180 - y * 360) * Double.pi / 180
        return 360 * atan(exp(y2)) / Double.pi - 90
    }
}
