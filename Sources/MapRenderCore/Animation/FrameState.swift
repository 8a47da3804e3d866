/// The points of one animation frame, as flat columns (one entry per visible point).
///
/// Positions are Web Mercator x, y in world units (x in [0, 1), see ``WebMercator``); points
/// with opacity 0 are left out. Produced by ``Transition/state(at:easing:)`` (keyframes) and
/// ``TrackReader/positions(frame:hold:)`` (tracks).
public struct FrameState: Sendable {
    public var x: [Double] = []
    public var y: [Double] = []
    /// 0...1: fading in (inserted), out (deleted), else 1.
    public var opacity: [Double] = []
    /// 0...1: markers grow in with their opacity (inserted); 1 for every other point.
    public var scale: [Double] = []
    public var ids: [PropertyValue] = []
    /// The entry each point comes from: an index into the ``Transition`` or the track index of
    /// the ``TrackReader`` (``TrackReader/ids``).
    public var item: [Int] = []
    /// Keyframes only (empty for tracks): the point's row in keyframe A and in keyframe B,
    /// -1 where it has none (inserted: no A row; deleted: no B row). Properties of a visible
    /// point are best taken from B when it has a B row, else from A.
    public var rowA: [Int] = []
    public var rowB: [Int] = []

    public init() {}

    public var count: Int { x.count }

    public mutating func reserveCapacity(_ n: Int) {
        x.reserveCapacity(n); y.reserveCapacity(n)
        opacity.reserveCapacity(n); scale.reserveCapacity(n)
        ids.reserveCapacity(n); item.reserveCapacity(n)
    }

    public func lon(_ i: Int) -> Double { WebMercator.lon(x: x[i]) }
    public func lat(_ i: Int) -> Double { WebMercator.lat(y: y[i]) }

    /// The frame as a point set (longitude, latitude, ids; no properties), to run through the
    /// ordinary pipeline. Longitudes are in [-180, 180).
    public func pointSet() -> PointSet {
        var s = PointSet()
        s.reserveCapacity(count)
        for i in 0..<count {
            s.lon.append(lon(i))
            s.lat.append(lat(i))
        }
        s.ids = IDColumn(ids)
        for _ in 0..<count { s.properties.appendEmptyRow() }
        return s
    }
}
