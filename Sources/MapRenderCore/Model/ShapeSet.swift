/// Lines and polygons, flat: every ring is a run of lon/lat pairs in `coords`.
///
/// `ringStart[r]` is the index (in pairs) of ring r's first vertex; ring r ends where ring r+1 starts
/// (`ringStart` has one extra element at the end). A shape is a run of rings: `shapeRingStart[s]`
/// (also with a final extra element). A polygon's first ring is its exterior, the others holes;
/// a line shape's rings are its parts. MultiPolygon parts become separate shapes.
///
/// The feature table of a map's lines and polygons: a shape's properties are row `row[s]` of
/// `properties` (one row per feature, shared by the shapes of a MultiPolygon or a
/// GeometryCollection), the same flat columns as a `PointSet`'s.
public struct ShapeSet: Sendable {
    public typealias Kind = ShapeKind

    public var coords: [Double] = []          // lon, lat, lon, lat, ...
    public var ringStart: [Int] = [0]
    public var shapeRingStart: [Int] = [0]
    public var kinds: [Kind] = []
    /// Index of the GeoJSON feature (or CSV line) each shape came from.
    public var feature: [Int] = []
    /// Each shape's row of `properties`; empty when the set has no properties (a basemap read
    /// without them).
    public var row: [Int32] = []
    public var properties = PropertyTable()
    /// Per shape, whether its edges are great-circle arcs (`--to-lat/--to-lon`) rather than
    /// straight in Web Mercator: such a line holds only its ends, and is drawn densified to the
    /// view's pixels (`forEachGreatCircleVertex`), its box and fitting reaching the arcs' true
    /// extent (`GreatCircle.latitudeRange`). Its edges are short arcs that stay within
    /// Web Mercator's ±85.05° (`PointArcs` gives an arc over a pole as plain lines). Empty when
    /// no shape has them.
    public private(set) var greatCircle: [Bool] = []

    /// Each shape's box in degrees, 4 per shape (west, east, south, north), its longitudes
    /// unwrapped as the shape is drawn (east may pass 180, west -180), a polygon that goes round
    /// a pole reaching it; nil until `computeBoxes()`, and again after
    /// `add`, `addRing` or `append` (a set changed by hand must call it again). Kept with sets drawn many times (the
    /// built-in land, a `--basemap` file): a view of a city then projects only the shapes near it.
    public internal(set) var boxes: [Double]?

    public init() {}

    /// Fills `boxes`. O(vertices), no trigonometry.
    public mutating func computeBoxes() {
        var out = [Double]()
        out.reserveCapacity(4 * shapeCount)
        for s in 0..<shapeCount {
            var west = Double.infinity, east = -Double.infinity, south = Double.infinity, north = -Double.infinity
            let arcs = isGreatCircle(s)
            for r in rings(of: s) {
                // The unwrapping of `forEachUnwrappedVertex`, in degrees (half the world = 180°).
                var prev = Double.nan, shift = 0.0, first = Double.nan, last = Double.nan
                for q in vertices(of: r) {
                    var lon = coords[2 * q]
                    if !prev.isNaN {
                        let d = lon + shift - prev
                        if d > 180 { shift -= 360 } else if d < -180 { shift += 360 }
                    }
                    lon += shift
                    prev = lon
                    if first.isNaN { first = lon }
                    last = lon
                    west = min(west, lon); east = max(east, lon)
                    south = min(south, coords[2 * q + 1]); north = max(north, coords[2 * q + 1])
                    if arcs && q > ringStart[r] {
                        let e = GreatCircle.latitudeRange(lat1: coords[2 * q - 1], lon1: coords[2 * q - 2],
                                                          lat2: coords[2 * q + 1], lon2: coords[2 * q])
                        south = min(south, e.south); north = max(north, e.north)
                    }
                }
                // A ring that ends about a world away from its start is closed along a pole's
                // edge when drawn (`ShapeLayout.closeAroundPole`): reaching either, to be safe.
                if kinds[s] == .polygon, abs(last - first) > 179 { south = -90; north = 90 }
            }
            out += [west, east, south, north]
        }
        boxes = out
    }

    public var shapeCount: Int { kinds.count }
    public var vertexCount: Int { coords.count / 2 }
    public var isEmpty: Bool { kinds.isEmpty }

    /// Adds one shape made of rings of (lon, lat) pairs. Rings of fewer than two positions are
    /// left out (a reader that must say why checks before).
    public mutating func add(kind: Kind, rings: [[Double]], feature f: Int, row r: Int? = nil, greatCircle arcs: Bool = false) {
        boxes = nil
        for ring in rings where ring.count >= 4 {
            coords.append(contentsOf: ring)
            ringStart.append(coords.count / 2)
        }
        guard ringStart.count - 1 > shapeRingStart.last! else { return }
        shapeRingStart.append(ringStart.count - 1)
        kinds.append(kind)
        feature.append(f)
        if let r { row.append(Int32(r)) }
        noteGreatCircle(arcs)
    }

    /// Adds one shape of one ring whose (lon, lat) pairs `body` appends to `coords` (no array
    /// per shape, for shapes made from millions of rows). Nothing is added when `body` returns
    /// false or appends fewer than two positions.
    @discardableResult
    public mutating func addRing(kind: Kind, feature f: Int, row r: Int? = nil, greatCircle arcs: Bool = false,
                                 _ body: (inout [Double]) -> Bool) -> Bool {
        boxes = nil
        let before = coords.count
        guard body(&coords), coords.count - before >= 4 else { coords.removeSubrange(before...); return false }
        ringStart.append(coords.count / 2)
        shapeRingStart.append(ringStart.count - 1)
        kinds.append(kind)
        feature.append(f)
        if let r { row.append(Int32(r)) }
        noteGreatCircle(arcs)
        return true
    }

    /// `greatCircle` for the shape just added.
    private mutating func noteGreatCircle(_ arcs: Bool) {
        guard arcs || !greatCircle.isEmpty else { return }
        if greatCircle.isEmpty { greatCircle = [Bool](repeating: false, count: shapeCount - 1) }
        greatCircle.append(arcs)
    }

    /// Whether shape s's edges are great-circle arcs (`greatCircle`).
    @inline(__always)
    public func isGreatCircle(_ s: Int) -> Bool { !greatCircle.isEmpty && greatCircle[s] }

    /// Ring indexes of shape s.
    public func rings(of s: Int) -> Range<Int> { shapeRingStart[s]..<shapeRingStart[s + 1] }
    /// Vertex indexes (pairs) of ring r.
    public func vertices(of r: Int) -> Range<Int> { ringStart[r]..<ringStart[r + 1] }
    /// The property row of shape s (nil when the set has none).
    public func propertyRow(of s: Int) -> Int? { row.isEmpty ? nil : Int(row[s]) }

    /// Shapes by kind ("Polygon", "LineString"), as `--summary` counts them.
    public var countsByKind: [String: Int] {
        var c: [String: Int] = [:]
        for k in kinds { c[k == .polygon ? "Polygon" : "LineString", default: 0] += 1 }
        return c
    }

    /// Appends another set's shapes; its property rows follow this set's, columns merged by name,
    /// its feature indexes shifted by `featureOffset`.
    public mutating func append(contentsOf other: ShapeSet, featureOffset: Int = 0) {
        boxes = nil
        let vertexBase = vertexCount, ringBase = ringStart.count - 1
        if !greatCircle.isEmpty || !other.greatCircle.isEmpty {
            if greatCircle.isEmpty { greatCircle = [Bool](repeating: false, count: shapeCount) }
            greatCircle += other.greatCircle.isEmpty ? [Bool](repeating: false, count: other.shapeCount) : other.greatCircle
        }
        if row.isEmpty && !isEmpty {
            for _ in 0..<shapeCount { row.append(Int32(properties.rowCount)); properties.appendEmptyRow() }
        }
        coords.append(contentsOf: other.coords)
        ringStart.append(contentsOf: other.ringStart.dropFirst().map { $0 + vertexBase })
        shapeRingStart.append(contentsOf: other.shapeRingStart.dropFirst().map { $0 + ringBase })
        kinds.append(contentsOf: other.kinds)
        feature.append(contentsOf: featureOffset == 0 ? other.feature : other.feature.map { $0 + featureOffset })
        let rowBase = Int32(properties.rowCount)
        properties.append(merging: other.properties)
        if other.row.isEmpty {
            for _ in 0..<other.shapeCount { row.append(Int32(properties.rowCount)); properties.appendEmptyRow() }
        } else {
            row.append(contentsOf: other.row.map { $0 + rowBase })
        }
    }

    /// The given shapes (ascending), with their rows.
    public func selecting(_ keep: [Int]) -> ShapeSet {
        var out = ShapeSet()
        out.properties = properties
        for s in keep {
            var rings: [[Double]] = []
            for r in self.rings(of: s) { rings.append(Array(coords[(2 * ringStart[r])..<(2 * ringStart[r + 1])])) }
            out.add(kind: kinds[s], rings: rings, feature: feature[s], row: propertyRow(of: s), greatCircle: isGreatCircle(s))
        }
        return out
    }
}
