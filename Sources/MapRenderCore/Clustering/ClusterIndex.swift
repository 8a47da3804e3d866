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
/// (`WebMercator`, whose arithmetic is supercluster's, rounded to `Float`); then for each zoom from `maxZoom` down, the items of the zoom above are
/// visited in order, and each one not yet taken gathers the untaken items within the zoom's
/// radius. If that makes at least `minPoints` points, they become one cluster at their
/// count-weighted centroid; otherwise they all stay as they were. Every item (point or cluster) is
/// stored once in flat arrays (`Items`) under a ref; a zoom is a list of refs, and each item links
/// to the cluster that took it.
///
/// A single static map needs only the zooms down to its own: `downTo` stops there, since the
/// clusters at zoom z depend only on the zooms above z.
///
/// - Complexity: building is O(n) per zoom level for spread-out points (a radix sort and a grid
///   sweep), more where many items crowd within one radius; a query is O(√n + k) for k results
///   (the first query at a zoom also builds its KD-tree).
public struct ClusterIndex: Sendable {
    public let options: ClusterOptions
    public let aggregates: [ClusterAggregate]
    /// supercluster's `points.length`: cluster ids are offset by it.
    public let featureCount: Int
    /// The lowest zoom that was built (`options.minZoom` unless `downTo` asked for less).
    public let lowestBuiltZoom: Int

    /// Every item of every zoom built, each stored once.
    private let items: Items
    /// `lists[z - lowestBuiltZoom]`: the items of zoom z, as refs in supercluster's order, for z in
    /// lowestBuiltZoom...maxZoom + 1 (empty for zooms not retained).
    private let lists: [[Int32]]
    /// How many items each zoom has (also those not retained).
    private let counts: [Int]
    /// `batches[z - lowestBuiltZoom]`: the refs of the clusters made at zoom z, in increasing id order.
    private let batches: [Range<Int>]
    /// Zooms whose pass was decided on two sides that meet at a column (for tests).
    let passesOnMeetingSides: Int
    /// Zooms clustered on a small grid of the crowded points (`Freeze`), and the change of
    /// columns at its thaw (for tests).
    let frozenZooms: Int
    let thawStep: Int
    /// Each level's KD-tree, made when first needed.
    private let trees: TreeCache
    /// The points grouped by the item holding them at the lowest zoom built, made when first needed.
    private let pointGroups = Cache<LowestGroups>(count: 1)
    /// Every item's children (refs grouped by parent), made when first needed.
    private let childGroups = Cache<Members>(count: 1)
    private let pointLon: [Double]
    private let pointLat: [Double]

    enum Operation: Sendable { case sum, min, max, mean }

    /// Clusters `points` for every zoom from `options.maxZoom + 1` down to `options.minZoom`,
    /// or down to `downTo` only.
    ///
    /// - Parameters:
    ///   - projected: the points already in Web Mercator world units (`WebMercator.x/y`, as
    ///     planning projects them once for clustering and layout); nil projects them here.
    ///   - featureCount: how many features supercluster would be given (its `points.length`),
    ///     which offsets every cluster id. Defaults to `points.count`; pass the number of input
    ///     features when some (say, with a null geometry) were left out of `points` but a web map
    ///     loads them all.
    ///   - downTo: the lowest zoom to build. Asking for a zoom below it is a programming error.
    ///   - bitExact: sum each cluster's members in the order supercluster does (kdbush's order),
    ///     so that centroids and aggregated sums match it bit for bit. Without it, members are
    ///     summed in another order, which can change the last bit or two of a centroid (1e-16 of
    ///     the world's width) and, far more rarely still, through that, on which side of the
    ///     radius a later neighbour falls. With it, building takes several times as long:
    ///     like supercluster, it builds a KD-tree for every zoom.
    ///   - retainAllZooms: keep every zoom's list of items (for queries at any zoom, `children`,
    ///     `leaves`, `expansionZoom`). A single static map needs only the lowest zoom built and
    ///     `members(of:)`: `false` keeps just that zoom's list (each item, point or cluster, is
    ///     stored once either way; a zoom's list costs 4 bytes per item, its KD-tree 12 more).
    public init(points: PointSet, projected: (x: [Double], y: [Double])? = nil, options: ClusterOptions = ClusterOptions(),
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
        self.pointLon = points.lon
        self.pointLat = points.lat

        let items = Items(pointCount: n, aggregateCount: aggregates.count, idOffset: self.featureCount)
        if let xy = projected {
            precondition(xy.x.count == n && xy.y.count == n, "one projected x and y per point")
            xy.x.withUnsafeBufferPointer { x in
                xy.y.withUnsafeBufferPointer { y in
                    inParts(n) { range in
                        for i in range {
                            items.pointXY[2 * i] = Float(x[i])
                            items.pointXY[2 * i + 1] = Float(y[i])
                        }
                    }
                }
            }
        } else {
            points.lon.withUnsafeBufferPointer { lon in
                points.lat.withUnsafeBufferPointer { lat in
                    inParts(n) { range in
                        for i in range {
                            items.pointXY[2 * i] = Float(WebMercator.x(lon: lon[i]))
                            items.pointXY[2 * i + 1] = Float(WebMercator.y(lat: lat[i]))
                        }
                    }
                }
            }
        }
        let a2 = 2 * aggregates.count
        for (a, aggregate) in aggregates.enumerated() {
            guard let c = points.properties.columnIndex(aggregate.field) else { continue }
            let column = points.properties.columns[c]
            for i in 0..<n {
                guard let v = column[i].numberValue, v.isFinite else { continue }
                items.aggregates[i * a2 + 2 * a] = v
                items.aggregates[i * a2 + 2 * a + 1] = 1
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
        let built = Self.build(items: items, options: options, operations: operations,
                               lowest: lowestBuiltZoom, bitExact: bitExact, retainAllZooms: retainAllZooms, trees: trees)
        self.items = items
        self.lists = built.lists
        self.counts = built.counts
        self.batches = built.batches
        self.passesOnMeetingSides = built.meetings
        self.frozenZooms = built.frozenZooms
        self.thawStep = built.thawStep
        self.trees = trees
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
        let list = retained(index)
        var ids: [Int32] = []
        tree(index).range(minX: WebMercator.x(lon: minLng), minY: WebMercator.y(lat: maxLat),
                         maxX: WebMercator.x(lon: maxLng), maxY: WebMercator.y(lat: minLat), into: &ids)
        return ids.map { item(Int(list[Int($0)])) }
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
        counts[levelIndex(zoom: zoom)]
    }

    /// The clusters and points a cluster splits into at the next zoom (supercluster's `getChildren`),
    /// or nil when there is no such cluster, or its zoom was not retained.
    public func children(of clusterID: Int) -> [ClusterItem]? {
        guard let c = ref(ofCluster: clusterID) else { return nil }
        let rel = clusterID - featureCount
        let originIndex = rel >> 5, originZoom = rel % 32
        let index = originZoom - lowestBuiltZoom
        let list = lists[index]
        guard list.count == counts[index] else { return nil }
        // Like supercluster: the items around the seed's place that the cluster took.
        let seed = Int(list[originIndex])
        let r = options.radius / (options.extent * pow2(originZoom - 1))
        var ids: [Int32] = []
        tree(index).within(x: items.x(seed), y: items.y(seed), radius: r, into: &ids)
        let result: [ClusterItem] = ids.compactMap { k in
            let ref = Int(list[Int(k)])
            return items.parent[ref] == Int32(c) ? item(ref) : nil
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

    /// Whether a cluster's points may all share one coordinate: only if the first pass (at
    /// `maxZoom`) made it. Points at one coordinate are equally far from any item, so the first
    /// item to take one of them takes them all; made into a cluster then, they stay in it, and any
    /// cluster made from it later holds another item too, with a point elsewhere. Left as they are
    /// (fewer than `minPoints`), they are too few for a cluster of their own later.
    public func mayHoldOneCoordinate(clusterID: Int) -> Bool {
        (clusterID - featureCount) & 31 == options.maxZoom + 1
    }

    /// Every point of a cluster, as indexes into the `PointSet` in increasing order; nil when there
    /// is no such cluster. The same points as `leaves(of:)`, found by following each item's link to
    /// the cluster that took it rather than by KD-tree queries: use it when the order does not
    /// matter. Works whether or not the zooms were retained.
    ///
    /// - Complexity: O(k) for the k points of a cluster that is still whole at the lowest zoom
    ///   built, after a first call that groups every point by its item there (O(n));
    ///   else O(k log k), after a first call that groups every item by its parent.
    public func members(of clusterID: Int) -> [Int]? {
        guard let c = ref(ofCluster: clusterID) else { return nil }
        // Most often the cluster is still one item at the lowest zoom built (the one a map shows).
        if items.parent[c] < 0 {
            let lowest = pointsByLowestItem()
            if let g = lowest.group[Int32(c)] {
                return lowest.points.items[Int(lowest.points.start[g])..<Int(lowest.points.start[g + 1])].map(Int.init)
            }
        }
        let children = childrenByParent()
        var result: [Int] = []
        result.reserveCapacity(Int(items.weight(c)))
        var stack = [c]
        while let ref = stack.popLast() {
            for child in children.items[Int(children.start[ref])..<Int(children.start[ref + 1])] {
                if items.isCluster(Int(child)) { stack.append(Int(child)) } else { result.append(Int(child)) }
            }
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
        let list = retained(index), tree = tree(index)
        let z2 = pow2(z)
        let p = options.radius / options.extent
        let top = (Double(y) - p) / z2
        let bottom = (Double(y) + 1 + p) / z2
        var out: [(item: ClusterItem, x: Int, y: Int)] = []
        func add(_ minX: Double, _ maxX: Double, _ tx: Double) {
            var ids: [Int32] = []
            tree.range(minX: minX, minY: top, maxX: maxX, maxY: bottom, into: &ids)
            for i in ids {
                let it = item(Int(list[Int(i)]))
                var px = it.x, py = it.y
                if let pi = it.pointIndex {
                    px = WebMercator.x(lon: pointLon[pi])
                    py = WebMercator.y(lat: pointLat[pi])
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

    /// The items of a level, which must have been retained.
    private func retained(_ index: Int) -> [Int32] {
        precondition(lists[index].count == counts[index],
                     "zoom \(index + lowestBuiltZoom) was not retained (retainAllZooms: false)")
        return lists[index]
    }

    /// The cluster with an id, if one was made at a zoom built.
    private func ref(ofCluster clusterID: Int) -> Int? {
        let rel = clusterID - featureCount
        guard rel >= 0 else { return nil }
        let zoom = rel % 32 - 1
        guard zoom >= lowestBuiltZoom, zoom <= options.maxZoom else { return nil }
        return items.ref(ofCluster: clusterID, in: batches[zoom - lowestBuiltZoom])
    }

    private func item(_ ref: Int) -> ClusterItem {
        var values: [String: Double] = [:]
        let a2 = 2 * aggregates.count
        for (a, aggregate) in aggregates.enumerated() {
            let v = items.aggregates[ref * a2 + 2 * a], n = items.aggregates[ref * a2 + 2 * a + 1]
            guard n > 0 else { continue }
            if case .mean = aggregate { values[aggregate.propertyName] = v / n } else { values[aggregate.propertyName] = v }
        }
        let x = items.x(ref), y = items.y(ref)
        if items.isCluster(ref) {
            return ClusterItem(id: Int(items.clusterID[ref - items.pointCount]) + items.idOffset, pointIndex: nil, count: Int(items.weight(ref)),
                               x: x, y: y, lon: WebMercator.lon(x: x), lat: WebMercator.lat(y: y), aggregates: values)
        }
        return ClusterItem(id: ref, pointIndex: ref, count: 1, x: x, y: y, lon: pointLon[ref], lat: pointLat[ref],
                           aggregates: values)
    }

    /// A level's KD-tree, made on first use.
    private func tree(_ index: Int) -> KDIndex {
        trees.value(index) {
            retained(index).withUnsafeBufferPointer { Self.tree(refs: $0, items: items, nodeSize: options.nodeSize) }
        }
    }

    /// Refs grouped by a ref: `items[start[g]..<start[g + 1]]` are group g's, in increasing order.
    struct Members: Sendable {
        var start: [Int32]
        var items: [Int32]

        /// Groups the refs `0..<count` whose `group(ref)` is not negative.
        init(count: Int, groups: Int, group: (Int) -> Int) {
            var start = [Int32](repeating: 0, count: groups + 1)
            for ref in 0..<count {
                let g = group(ref)
                if g >= 0 { start[g + 1] += 1 }
            }
            for g in 0..<groups { start[g + 1] += start[g] }
            var next = start
            var items = [Int32](repeating: 0, count: Int(start[groups]))
            for ref in 0..<count {
                let g = group(ref)
                guard g >= 0 else { continue }
                items[Int(next[g])] = Int32(ref)
                next[g] += 1
            }
            self.start = start
            self.items = items
        }
    }

    /// The points grouped by the item holding them at the lowest zoom built: group k is the kth
    /// item of that zoom's list.
    struct LowestGroups: Sendable {
        /// The group of each item of the lowest zoom, by ref.
        var group: [Int32: Int]
        var points: Members
    }

    /// The points grouped by the item holding them at the lowest zoom built.
    ///
    /// Each item's group follows from its parent's, and a parent's ref is larger than its
    /// children's: from the last ref down, every item's group is known when asked for. The
    /// groups are the lowest zoom's few items, so their counts stay in the cache (grouped by
    /// ref, a million points took about 10 ms, a third of a 1M map's planning after clustering).
    private func pointsByLowestItem() -> LowestGroups {
        pointGroups.value(0) {
            let lowest = lists[0], n = items.pointCount, parent = items.parent
            let group = UnsafeMutablePointer<Int32>.allocate(capacity: Swift.max(items.count, 1))
            defer { group.deallocate() }
            for (k, ref) in lowest.enumerated() { group[Int(ref)] = Int32(k) }
            for ref in Swift.stride(from: items.count - 1, through: n, by: -1) where parent[ref] >= 0 {
                group[ref] = group[Int(parent[ref])]
            }
            inParts(n) { range in
                for ref in range where parent[ref] >= 0 { group[ref] = group[Int(parent[ref])] }
            }
            let points = Members(count: n, groups: lowest.count) { Int(group[$0]) }
            return LowestGroups(group: Dictionary(uniqueKeysWithValues: lowest.enumerated().map { ($1, $0) }),
                                points: points)
        }
    }

    /// Every item grouped by the cluster that took it.
    private func childrenByParent() -> Members {
        childGroups.value(0) { Members(count: items.count, groups: items.count) { Int(items.parent[$0]) } }
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
}
