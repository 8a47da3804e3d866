import Foundation

/// Great-circle edges in world units (Web Mercator), drawn at the view's resolution.
///
/// Why: 10k flows drawn from arcs cut in 1° steps when read (737k vertices, of which
/// Douglas–Peucker kept 197k for a world view) spent about a fifth of their instructions making
/// and simplifying vertices nobody saw. Here an arc is cut where the view needs it: a piece is
/// kept when its points a quarter, half and three quarters of the way along lie within the
/// tolerance of its chord on the map, else it is halved (by angle, the midpoint of two unit
/// vectors being their normalised sum, no trigonometry). Three points, not only the middle one:
/// a great circle's image bends both ways where it crosses the equator (its one inflection), and
/// a piece centred there has its middle on its chord.
extension ShapeSet {
    /// The least number of halvings of each edge (pieces of at most a quarter of it), so that a
    /// long arc is never judged by three points alone.
    static let greatCircleMinDepth = 2
    /// The most halvings of an edge (pieces of 1/4096 of it: 0.04° for the longest arc).
    static let greatCircleMaxDepth = 12

    /// Visits ring r's vertices in world units, each edge a great-circle arc (`greatCircle`),
    /// densified so that the path lies within `tolerance` world units of the true arc; the
    /// ring's own vertices projected as `forEachUnwrappedVertex` projects them, unwrapped alike
    /// (an arc across 180° goes the short way, x passing 0 or 1).
    /// - Complexity: O(vertices drawn); about three projections (an arc tangent and a log) per
    ///   vertex drawn.
    public func forEachGreatCircleVertex(ofRing r: Int, tolerance: Double, _ body: (_ x: Double, _ y: Double) -> Void) {
        var ax = 0.0, ay = 0.0, a = (x: 0.0, y: 0.0, z: 0.0)
        var first = true
        forEachUnwrappedX(ofRing: r) { x, q in
            let lat = coords[2 * q + 1]
            let y = WebMercator.y(lat: lat)
            let b = GreatCircle.unitVector(lat: lat, lon: coords[2 * q])
            if !first {
                // The edge's middle on the great circle (antipodes have none: a straight edge).
                let mx = a.x + b.x, my = a.y + b.y, mz = a.z + b.z
                let ml = (mx * mx + my * my + mz * mz).squareRoot()
                if ml > 1e-9 {
                    let m = (x: mx / ml, y: my / ml, z: mz / ml)
                    let pm = Self.project(m, near: ax)
                    Self.subdivide(a, (ax, ay), b, (x, y), m, pm, depth: 0, tolerance2: tolerance * tolerance, body)
                }
            }
            body(x, y)
            ax = x; ay = y; a = b
            first = false
        }
    }

    /// A unit vector in world units, x the copy nearest `near`.
    @inline(__always)
    static func project(_ v: (x: Double, y: Double, z: Double), near: Double) -> (Double, Double) {
        var x = atan2(v.y, v.x) / (2 * .pi) + 0.5
        // (Comparisons, not `rounded()`: a call into libm per vertex.)
        while x - near > 0.5 { x -= 1 }
        while near - x > 0.5 { x += 1 }
        // WebMercator.y from the sine of the latitude, clamped alike.
        let s = min(max(v.z, -sinMaxLatitude), sinMaxLatitude)
        let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi
        return (x, min(max(y, 0), 1))
    }

    private static let sinMaxLatitude = sin(WebMercator.maxLatitude * .pi / 180)

    /// The vertices strictly inside the piece from a to b (m its middle, each with its
    /// projection), in order.
    private static func subdivide(_ a: (x: Double, y: Double, z: Double), _ pa: (Double, Double),
                                  _ b: (x: Double, y: Double, z: Double), _ pb: (Double, Double),
                                  _ m: (x: Double, y: Double, z: Double), _ pm: (Double, Double),
                                  depth: Int, tolerance2: Double, _ body: (_ x: Double, _ y: Double) -> Void) {
        guard depth < greatCircleMaxDepth else { return }
        let q1 = middle(a, m), q3 = middle(m, b)
        let p1 = project(q1, near: pa.0), p3 = project(q3, near: pm.0)
        if depth >= greatCircleMinDepth {
            let dx = pb.0 - pa.0, dy = pb.1 - pa.1
            if distance2(p1, from: pa, dx, dy) <= tolerance2 && distance2(pm, from: pa, dx, dy) <= tolerance2
                && distance2(p3, from: pa, dx, dy) <= tolerance2 { return }
        }
        subdivide(a, pa, m, pm, q1, p1, depth: depth + 1, tolerance2: tolerance2, body)
        body(pm.0, pm.1)
        subdivide(m, pm, b, pb, q3, p3, depth: depth + 1, tolerance2: tolerance2, body)
    }

    /// The middle of the short arc between two unit vectors less than half a turn apart.
    @inline(__always)
    private static func middle(_ a: (x: Double, y: Double, z: Double), _ b: (x: Double, y: Double, z: Double)) -> (x: Double, y: Double, z: Double) {
        let x = a.x + b.x, y = a.y + b.y, z = a.z + b.z
        let l = (x * x + y * y + z * z).squareRoot()
        return (x / l, y / l, z / l)
    }

    /// The squared distance from p to the segment from a along (dx, dy).
    @inline(__always)
    private static func distance2(_ p: (Double, Double), from a: (Double, Double), _ dx: Double, _ dy: Double) -> Double {
        let px = p.0 - a.0, py = p.1 - a.1
        let len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(max((px * dx + py * dy) / len2, 0), 1) : 0
        let ex = px - t * dx, ey = py - t * dy
        return ex * ex + ey * ey
    }
}
