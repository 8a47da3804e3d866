/// Lines and polygons (a basemap), flat: every ring is a run of lon/lat pairs in `coords`.
///
/// `ringStart[r]` is the index (in pairs) of ring r's first vertex; ring r ends where ring r+1 starts
/// (`ringStart` has one extra element at the end). A shape is a run of rings: `shapeRingStart[s]`
/// (also with a final extra element). A polygon's first ring is its exterior, the others holes;
/// a line shape's rings are its parts. MultiPolygon parts become separate shapes.
public struct ShapeSet: Sendable {
    public typealias Kind = ShapeKind

    public var coords: [Double] = []          // lon, lat, lon, lat, ...
    public var ringStart: [Int] = [0]
    public var shapeRingStart: [Int] = [0]
    public var kinds: [Kind] = []
    /// Index of the GeoJSON feature each shape came from.
    public var feature: [Int] = []

    public init() {}

    public var shapeCount: Int { kinds.count }
    public var vertexCount: Int { coords.count / 2 }

    /// Adds one shape made of rings of (lon, lat) pairs.
    public mutating func add(kind: Kind, rings: [[Double]], feature f: Int) {
        for ring in rings where ring.count >= 4 {
            coords.append(contentsOf: ring)
            ringStart.append(coords.count / 2)
        }
        guard ringStart.count - 1 > shapeRingStart.last! else { return }
        shapeRingStart.append(ringStart.count - 1)
        kinds.append(kind)
        feature.append(f)
    }

    /// Ring indexes of shape s.
    public func rings(of s: Int) -> Range<Int> { shapeRingStart[s]..<shapeRingStart[s + 1] }
    /// Vertex indexes (pairs) of ring r.
    public func vertices(of r: Int) -> Range<Int> { ringStart[r]..<ringStart[r + 1] }
}
