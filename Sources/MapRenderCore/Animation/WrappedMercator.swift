/// Mercator x on a world that wraps at the antimeridian: x and x + 1 are the same meridian.
///
/// Animation moves points the short way round: from lon 170 to lon -170 is 20° east across
/// 180°, not 340° west across Greenwich.
enum WrappedMercator {
    /// x folded into [0, 1) (lon 180 and lon -180 both become 0).
    @inline(__always)
    static func normalise(_ x: Double) -> Double {
        var r = x - x.rounded(.down)
        if r >= 1 { r = 0 }   // x slightly below an integer can round up to 1
        return r
    }

    /// The signed x step from `a` to `b` the short way, in -0.5...0.5 (exactly 0.5 apart: no wrap).
    @inline(__always)
    static func shortDelta(from a: Double, to b: Double) -> Double {
        var d = b - a
        if d > 0.5 { d -= 1 } else if d < -0.5 { d += 1 }
        return d
    }

    /// The point a fraction `f` of the way from (x0, y0) to (x1, y1): x the short way round and
    /// normalised into [0, 1), y linear.
    @inline(__always)
    static func interpolate(x0: Double, y0: Double, x1: Double, y1: Double, f: Double) -> (x: Double, y: Double) {
        if f <= 0 { return (normalise(x0), y0) }
        if f >= 1 { return (normalise(x1), y1) }
        return (normalise(x0 + shortDelta(from: x0, to: x1) * f), y0 + (y1 - y0) * f)
    }

    /// The projected position of a longitude/latitude, x in [0, 1).
    @inline(__always)
    static func project(lon: Double, lat: Double) -> (x: Double, y: Double) {
        (normalise(WebMercator.x(lon: lon)), WebMercator.y(lat: lat))
    }
}
