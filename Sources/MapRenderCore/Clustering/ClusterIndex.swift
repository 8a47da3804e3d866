import Foundation

/// Clusters of points for every zoom, as mapbox/supercluster v8 makes them.
///
/// Same points, same order and same options give the clusters supercluster gives: the same
/// members, `cluster_id`s, counts and result order, and the same centroids (to the last bit with
/// `bitExact`, else to about 1e-16), so a static map shows what a web map running supercluster shows.
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
/// flat array, one run of `stride` numbers per item read through `Slot` offsets.
///
/// A single static map needs only the zooms down to its own: `downTo` stops there, since the
/// clusters at zoom z depend only on the zooms above z.
///
/// - Complexity: building is O(n log n) per zoom level, close to O(n) for spread-out points
///   (a million clumped points, all 17 zooms: about 1 s); a query is O(√n + k) for k results
///   (the first query at a zoom also builds its KD-tree).
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
    /// Each level's KD-tree, made when first needed.
    private let trees: TreeCache
    /// Each level's items grouped by the item that holds them at the zoom below, made when first needed.
    private let below: Cache<Members>
    /// The points grouped by the item that holds them at the lowest zoom built, made when first needed.
    private let pointGroups = Cache<Members>(count: 1)
    private let pointLon: [Double]
    private let pointLat: [Double]

    struct Level: Sendable {
        var data: [Double]
        var count: Int
        /// For each item, the index of the item that holds it at the zoom below (empty at the lowest zoom built).
        var down: [Int32] = []
    }

    enum Operation: Sendable { case sum, min, max, mean }

    /// Clusters `points` for every zoom from `options.maxZoom + 1` down to `options.minZoom`,
    /// or down to `downTo` only.
    ///
    /// - Parameters:
    ///   - featureCount: how many features supercluster would be given (its `points.length`),
    ///     which offsets every cluster id. Defaults to `points.count`; pass the number of input
    ///     features when some (say, with a null geometry) were left out of `points` but a web map
    ///     loads them all.
    ///   - downTo: the lowest zoom to build. Asking for a zoom below it is a programming error.
    ///   - bitExact: sum each cluster's members in the order supercluster does (kdbush's order),
    ///     so that centroids and aggregated sums match it bit for bit. Without it, members are
    ///     summed in another order, which can change the last bit or two of a centroid (1e-16 of
    ///     the world's width) and, far more rarely still, through that, on which side of the
    ///     radius a later neighbour falls. With it, building takes about four times as long:
    ///     like supercluster, it builds a KD-tree for every zoom.
    ///   - retainAllZooms: keep every zoom's items (for queries at any zoom, `children`, `leaves`,
    ///     `expansionZoom`). A single static map needs only the lowest zoom built and `members(of:)`:
    ///     `false` keeps just that zoom's items and each zoom's links (4 bytes per item instead of
    ///     about 44), which for a million points cuts the index from ~300 MB to ~80 MB.
    public init(points: PointSet, options: ClusterOptions = ClusterOptions(),
                aggregates: [ClusterAggregate] = [], featureCount: Int? = nil, downTo: Int? = nil,
                bitExact: Bool = false, retainAllZooms: Bool = true) {
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

        let trees = TreeCache(count: options.maxZoom + 2 - lowestBuiltZoom)
        var built: [Level] = []
        var level = Level(data: data, count: n)
        data = []
        var grid: NeighbourGrid?
        var z = options.maxZoom
        while z >= lowestBuiltZoom {
            let pass = Pass(zoom: z, options: options, stride: stride, featureCount: self.featureCount,
                            operations: operations)
            let cacheIndex = z + 1 - lowestBuiltZoom
            let next: Level
            if bitExact {
                let tree = trees.value(cacheIndex) { Self.tree(level, stride, options.nodeSize) }
                next = pass.clusterInTreeOrder(&level, tree: tree)
            } else {
                var thisGrid = grid ?? Self.grid(level, stride, cell: pass.cell)
                grid = nil
                var tree: KDIndex?
                let result = pass.cluster(&level, grid: &thisGrid, tree: &tree)
                if let tree { _ = trees.value(cacheIndex) { tree } }
                next = result.level
                if z > lowestBuiltZoom {
                    let cell = Pass(zoom: z - 1, options: options, stride: stride, featureCount: 0, operations: []).cell
                    grid = Self.nextGrid(thisGrid, level.count, next, result.from, stride, cell: cell)
                }
            }
            if !retainAllZooms { level.data = [] }
            built.append(level)
            level = next
            z -= 1
        }
        built.append(level)
        self.levels = built.reversed()
        self.trees = trees
        self.below = Cache(count: levels.count)
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
        let index = levelIndex(zoom: zoom)
        let level = levels[index]
        precondition(level.count == 0 || !level.data.isEmpty, "zoom \(zoom) was not retained (retainAllZooms: false)")
        var ids: [Int32] = []
        tree(index).range(minX: Self.lngX(minLng), minY: Self.latY(maxLat),
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
        guard originIndex < level.count, !level.data.isEmpty else { return nil }
        let tree = tree(originZoom - lowestBuiltZoom)
        let r = options.radius / (options.extent * pow2(originZoom - 1))
        var ids: [Int32] = []
        let result: [ClusterItem] = level.data.withUnsafeBufferPointer { d in
            let k = originIndex * stride
            tree.within(x: d[k + Slot.x], y: d[k + Slot.y], radius: r, into: &ids)
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

    /// Every point of a cluster, as indexes into the `PointSet` in increasing order; nil when there
    /// is no such cluster. The same points as `leaves(of:)`, found by following each zoom's links
    /// to the zoom below rather than by KD-tree queries: use it when the order does not matter.
    ///
    /// - Complexity: O(z + k) for k points of a cluster still whole at the lowest zoom built
    ///   (z zooms down to it), after a first call that finds every point's item there (O(n · z));
    ///   else O(k · z + k log k), after grouping the items of each zoom above the cluster's.
    public func members(of clusterID: Int) -> [Int]? {
        let rel = clusterID - featureCount
        guard rel >= 0 else { return nil }
        let originIndex = rel >> 5, originZoom = rel % 32
        guard originZoom - 1 >= lowestBuiltZoom, originZoom <= options.maxZoom + 1 else { return nil }
        let above = levels[originZoom - lowestBuiltZoom]
        guard originIndex < above.count else { return nil }
        let c = Int(above.down[originIndex])
        let level = levels[originZoom - 1 - lowestBuiltZoom]
        if !level.data.isEmpty {
            guard level.data[c * stride + Slot.id] == Double(clusterID), level.data[c * stride + Slot.count] > 1 else { return nil }
        }
        // Most often the cluster is still one item at the lowest zoom built (the one a map shows).
        var lowest = c
        for l in Swift.stride(from: originZoom - 1 - lowestBuiltZoom, to: 0, by: -1) { lowest = Int(levels[l].down[lowest]) }
        if levels[0].data[lowest * stride + Slot.id] == Double(clusterID) {
            let groups = pointsByLowestItem()
            return groups.items[Int(groups.start[lowest])..<Int(groups.start[lowest + 1])].map(Int.init)
        }
        // Down the zooms: the items holding the cluster's points at each zoom above, to the points.
        var items: [Int32] = [Int32(c)]
        for l in (originZoom - lowestBuiltZoom)..<levels.count {
            let m = members(l)
            var next: [Int32] = []
            next.reserveCapacity(items.count)
            m.start.withUnsafeBufferPointer { start in
                m.items.withUnsafeBufferPointer { held in
                    for item in items {
                        next.append(contentsOf: held[Int(start[Int(item)])..<Int(start[Int(item) + 1])])
                    }
                }
            }
            items = next
        }
        // The top zoom's items are the points in input order (when its items were not retained, too).
        var result = levels[levels.count - 1].data.withUnsafeBufferPointer { d in
            d.isEmpty ? items.map { Int($0) } : items.map { Int(d[Int($0) * stride + Slot.id]) }
        }
        result.sort()
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
        let index = levelIndex(zoom: Double(z))
        let level = levels[index], tree = tree(index)
        let z2 = pow2(z)
        let p = options.radius / options.extent
        let top = (Double(y) - p) / z2
        let bottom = (Double(y) + 1 + p) / z2
        var out: [(item: ClusterItem, x: Int, y: Int)] = []
        func add(_ minX: Double, _ maxX: Double, _ tx: Double) {
            var ids: [Int32] = []
            tree.range(minX: minX, minY: top, maxX: maxX, maxY: bottom, into: &ids)
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

    /// A level's KD-tree, made on first use.
    private func tree(_ index: Int) -> KDIndex {
        trees.value(index) { Self.tree(levels[index], stride, options.nodeSize) }
    }

    /// The items of level `index` grouped by the item of the level below that holds them.
    struct Members: Sendable {
        /// `items[start[c]..<start[c + 1]]` are held by item c of the level below.
        var start: [Int32]
        var items: [Int32]
    }

    /// The points grouped by the item holding them at the lowest zoom built, in increasing order.
    private func pointsByLowestItem() -> Members {
        pointGroups.value(0) {
            var item = [Int32](0..<Int32(levels[levels.count - 1].count))
            for l in Swift.stride(from: levels.count - 1, to: 0, by: -1) {
                levels[l].down.withUnsafeBufferPointer { down in
                    for p in item.indices { item[p] = down[Int(item[p])] }
                }
            }
            let lower = levels[0].count
            var start = [Int32](repeating: 0, count: lower + 1)
            for c in item { start[Int(c) + 1] += 1 }
            for c in 0..<lower { start[c + 1] += start[c] }
            var next = start
            var points = [Int32](repeating: 0, count: item.count)
            for (p, c) in item.enumerated() {
                points[Int(next[Int(c)])] = Int32(p)
                next[Int(c)] += 1
            }
            return Members(start: start, items: points)
        }
    }

    private func members(_ index: Int) -> Members {
        below.value(index) {
            let down = levels[index].down, lower = levels[index - 1].count
            var start = [Int32](repeating: 0, count: lower + 1)
            for c in down { start[Int(c) + 1] += 1 }
            for c in 0..<lower { start[c + 1] += start[c] }
            var next = start
            var items = [Int32](repeating: 0, count: down.count)
            for (k, c) in down.enumerated() {
                items[Int(next[Int(c)])] = Int32(k)
                next[Int(c)] += 1
            }
            return Members(start: start, items: items)
        }
    }

    /// A grid of a level's items, from scratch.
    private static func grid(_ level: Level, _ stride: Int, cell: Double) -> NeighbourGrid {
        var xy = [Float](repeating: 0, count: 2 * level.count)
        level.data.withUnsafeBufferPointer { d in
            for i in 0..<level.count {
                xy[2 * i] = Float(d[i * stride + Slot.x])
                xy[2 * i + 1] = Float(d[i * stride + Slot.y])
            }
        }
        return xy.withUnsafeBufferPointer { NeighbourGrid(xy: $0, cell: cell) }
    }

    /// The grid of the next zoom's items, from the grid of the zoom above (items copied from
    /// there keep their places; new clusters are merged in).
    private static func nextGrid(_ grid: NeighbourGrid, _ previousCount: Int, _ next: Level, _ from: [Int32],
                                 _ stride: Int, cell: Double) -> NeighbourGrid {
        var newIndex = [Int32](repeating: -1, count: previousCount)   // by position in `grid`
        var added: [(index: Int32, x: Float, y: Float)] = []
        next.data.withUnsafeBufferPointer { d in
            grid.position.withUnsafeBufferPointer { position in
                newIndex.withUnsafeMutableBufferPointer { newIndex in
                    for (j, f) in from.enumerated() {
                        if f >= 0 {
                            newIndex[Int(position[Int(f)])] = Int32(j)
                        } else {
                            added.append((Int32(j), Float(d[j * stride + Slot.x]), Float(d[j * stride + Slot.y])))
                        }
                    }
                }
            }
        }
        return grid.next(newIndex: newIndex, added: added, count: next.count, cell: cell)
            ?? Self.grid(next, stride, cell: cell)
    }

    static func tree(_ level: Level, _ stride: Int, _ nodeSize: Int) -> KDIndex {
        level.data.withUnsafeBufferPointer { KDIndex(data: $0, stride: stride, count: level.count, nodeSize: nodeSize) }
    }

    typealias TreeCache = Cache<KDIndex>

    /// One value per level, made at most once each when first asked for, and shared by copies
    /// of the index (so also across threads).
    final class Cache<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Value?]

        init(count: Int) { values = Array(repeating: nil, count: count) }

        func value(_ index: Int, build: () -> Value) -> Value {
            lock.lock()
            defer { lock.unlock() }
            if let value = values[index] { return value }
            let value = build()
            values[index] = value
            return value
        }
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
