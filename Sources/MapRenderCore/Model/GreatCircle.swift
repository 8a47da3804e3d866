import Foundation

/// Great circles and geodesic circles on a sphere of the mean Earth radius: arcs between two
/// places (flight routes, flows) and the places at a distance around one (`--circle-radius`).
///
/// The sphere, not the WGS84 ellipsoid: the two differ by at most 0.5 % in distance, less than
/// a pixel at the zooms where a route or a 50 km circle is seen whole, and the sphere's
/// formulas are closed (no iteration that might not converge on odd input).
public enum GreatCircle {
    /// The IUGG mean Earth radius, metres.
    public static let earthRadius = 6_371_008.8
    /// The longest step between two vertices of an arc made by `arc` (arcs over a pole, the
    /// bench's and tests' GeoJSON for Mapnik), degrees of arc; arcs from rows are otherwise cut
    /// when laid out, to the view's pixels (`ShapeSet.greatCircle`). On the map a 1°
    /// chord bulges from the curve it cuts by its length squared over eight times the curve's
    /// radius: about 1e-5 of the world's width for a transpacific arc, a sixth of a pixel at
    /// zoom 5, where such an arc is seen whole.
    public static let stepDegrees = 1.0

    /// Places closer than this to each other's antipode (radians: 6 m) have no one great circle
    /// that the arithmetic can find.
    public static let antipodeTolerance = 1e-6

    /// The angle between two places seen from the Earth's centre, radians (haversine: exact
    /// for short and long distances alike, not only small ones).
    public static func angle(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let dp = p2 - p1, dl = (lon2 - lon1) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * atan2(min(1, h).squareRoot(), max(0, 1 - h).squareRoot())
    }

    /// The distance between two places along the sphere, metres.
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        angle(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) * earthRadius
    }

    /// The place a fraction `f` (0...1) of the way from the first place to the second along
    /// their great circle, as (lat, lon) in degrees, lon in -180...180. Undefined for
    /// antipodes (every great circle through one passes through the other): nil then.
    public static func intermediate(lat1: Double, lon1: Double, lat2: Double, lon2: Double, fraction f: Double) -> (lat: Double, lon: Double)? {
        let d = angle(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        return intermediate(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, angle: d, fraction: f)
    }

    static func intermediate(lat1: Double, lon1: Double, lat2: Double, lon2: Double, angle d: Double,
                             fraction f: Double) -> (lat: Double, lon: Double)? {
        if d == 0 { return (lat1, lon1) }
        guard d < .pi - antipodeTolerance else { return nil }
        let s = sin(d)
        let p1 = lat1 * .pi / 180, l1 = lon1 * .pi / 180, p2 = lat2 * .pi / 180, l2 = lon2 * .pi / 180
        // Spherical linear interpolation of the two unit vectors.
        let a = sin((1 - f) * d) / s, b = sin(f * d) / s
        let x = a * cos(p1) * cos(l1) + b * cos(p2) * cos(l2)
        let y = a * cos(p1) * sin(l1) + b * cos(p2) * sin(l2)
        let z = a * sin(p1) + b * sin(p2)
        return (atan2(z, (x * x + y * y).squareRoot()) * 180 / .pi, atan2(y, x) * 180 / .pi)
    }

    /// The arc from the first place to the second as lon, lat pairs, one vertex per
    /// `stepDegrees` of arc at most (the ends exact), for a `ShapeSet` line: drawn unwrapped,
    /// it takes the short way across 180°. Nil for antipodes.
    /// - Complexity: O(angle / step), at most 181 vertices.
    public static func arc(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> [Double]? {
        var out: [Double] = []
        return appendArc(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, to: &out) ? out : nil
    }

    /// `arc(...)` appended to `out` (no array per arc); false, and nothing appended, for antipodes.
    ///
    /// The same vertices as `intermediate` gives, bit for bit (the same products in the same
    /// order), with the ends' sines and cosines taken once per arc rather than once per vertex:
    /// two sines and two arc tangents a vertex instead of eleven trigonometric calls (10k arcs
    /// spent about a seventh of their run's samples in `sin`, `cos` and `atan2`).
    @discardableResult
    public static func appendArc(lat1: Double, lon1: Double, lat2: Double, lon2: Double, to out: inout [Double]) -> Bool {
        let d = angle(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        guard d < .pi - antipodeTolerance else { return false }
        let steps = max(1, Int((d * 180 / .pi / stepDegrees).rounded(.up)))
        out.append(lon1); out.append(lat1)
        if steps > 1 && d != 0 {
            let s = sin(d)
            let p1 = lat1 * .pi / 180, l1 = lon1 * .pi / 180, p2 = lat2 * .pi / 180, l2 = lon2 * .pi / 180
            let cp1 = cos(p1), cl1 = cos(l1), sl1 = sin(l1), sp1 = sin(p1)
            let cp2 = cos(p2), cl2 = cos(l2), sl2 = sin(l2), sp2 = sin(p2)
            for k in 1..<steps {
                let f = Double(k) / Double(steps)
                // As `intermediate`: spherical linear interpolation of the two unit vectors.
                let a = sin((1 - f) * d) / s, b = sin(f * d) / s
                let x = a * cp1 * cl1 + b * cp2 * cl2
                let y = a * cp1 * sl1 + b * cp2 * sl2
                let z = a * sp1 + b * sp2
                out.append(atan2(y, x) * 180 / .pi); out.append(atan2(z, (x * x + y * y).squareRoot()) * 180 / .pi)
            }
        }
        out.append(lon2); out.append(lat2)
        return true
    }

    /// The southernmost and northernmost latitudes, degrees, of the short arc from the first
    /// place to the second: its ends' latitudes, or the great circle's vertex (its point
    /// nearest a pole) where the arc passes it. The arc's true extent, for fitting a view to
    /// arcs drawn at the view's resolution (`ShapeSet.greatCircle`). Its longitudes need no
    /// such care: along a short arc they run monotonically from one end's to the other's.
    /// - Complexity: O(1).
    public static func latitudeRange(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> (south: Double, north: Double) {
        var south = min(lat1, lat2), north = max(lat1, lat2)
        let a = unitVector(lat: lat1, lon: lon1), b = unitVector(lat: lat2, lon: lon2)
        // The normal of the arc's plane, n = a × b (zero for the same place or antipodes).
        let nx = a.y * b.z - a.z * b.y, ny = a.z * b.x - a.x * b.z, nz = a.x * b.y - a.y * b.x
        let n2 = nx * nx + ny * ny + nz * nz
        guard n2 > 1e-30 else { return (south, north) }
        // The circle's northern vertex: the pole's direction less its part along n, v ∝ ẑ - (n_z / |n|²) n.
        let k = nz / n2
        let vx = -k * nx, vy = -k * ny, vz = 1 - k * nz
        let vl = (vx * vx + vy * vy + vz * vz).squareRoot()
        guard vl > 1e-15 else { return (south, north) }   // an equator: no vertex
        let lat = asin(min(1, max(-1, vz / vl))) * 180 / .pi
        // v lies on the short arc when it is on the far side of a from b's point of view and
        // vice versa: (a × v) · n ≥ 0 and (v × b) · n ≥ 0; -v likewise for the southern vertex.
        func between(_ sx: Double, _ sy: Double, _ sz: Double) -> Bool {
            let av = (a.y * sz - a.z * sy) * nx + (a.z * sx - a.x * sz) * ny + (a.x * sy - a.y * sx) * nz
            let vb = (sy * b.z - sz * b.y) * nx + (sz * b.x - sx * b.z) * ny + (sx * b.y - sy * b.x) * nz
            return av >= 0 && vb >= 0
        }
        if between(vx, vy, vz) { north = max(north, lat) }
        if between(-vx, -vy, -vz) { south = min(south, -lat) }
        return (south, north)
    }

    /// The unit vector of a place from the Earth's centre (x towards 0°E on the equator, z north).
    @inline(__always)
    public static func unitVector(lat: Double, lon: Double) -> (x: Double, y: Double, z: Double) {
        let p = lat * .pi / 180, l = lon * .pi / 180
        return (cos(p) * cos(l), cos(p) * sin(l), sin(p))
    }

    /// The place `distance` metres from (lat, lon) on the initial bearing `bearing` (degrees
    /// clockwise from north), as (lat, lon) in degrees, lon in -180...180.
    public static func destination(lat: Double, lon: Double, distance: Double, bearing: Double) -> (lat: Double, lon: Double) {
        let d = distance / earthRadius
        let p1 = lat * .pi / 180, l1 = lon * .pi / 180, t = bearing * .pi / 180
        let sp2 = sin(p1) * cos(d) + cos(p1) * sin(d) * cos(t)
        let p2 = asin(min(1, max(-1, sp2)))
        let l2 = l1 + atan2(sin(t) * sin(d) * cos(p1), cos(d) - sin(p1) * sp2)
        var lonOut = l2 * 180 / .pi
        lonOut = lonOut - 360 * ((lonOut + 180) / 360).rounded(.down)
        return (p2 * 180 / .pi, lonOut)
    }

    /// The circle of places `radius` metres from (lat, lon), as one closed ring of lon, lat
    /// pairs (`segments` vertices plus the closing one) for a `ShapeSet` polygon. A circle around
    /// a pole is closed along the pole (its ring runs once round the world, then back along
    /// latitude ±90°, which the map clamps to its edge), so it fills the cap above it.
    /// - Complexity: O(segments).
    public static func circle(lat: Double, lon: Double, radius: Double, segments: Int = 128) -> [Double] {
        var ring: [Double] = []
        appendCircle(lat: lat, lon: lon, radius: radius, segments: segments, to: &ring)
        return ring
    }

    /// `circle(...)` appended to `out` (no array per circle).
    public static func appendCircle(lat: Double, lon: Double, radius: Double, segments: Int = 128, to out: inout [Double]) {
        let b = out.count
        for k in 0..<segments {
            let p = destination(lat: lat, lon: lon, distance: radius, bearing: 360 * Double(k) / Double(segments))
            out.append(p.lon); out.append(p.lat)
        }
        let colatitude = (90 - abs(lat)) * .pi / 180
        if radius / earthRadius > colatitude {
            // Around a pole the ring runs once round the world. It goes on along the pole
            // (latitude ±90°, which the map clamps to its edge) back to its first longitude, in
            // steps of less than half the world so that unwrapping keeps each the short way,
            // and so fills the cap above it.
            var unwrapped = out[b]
            for k in 1..<segments {
                var step = out[b + 2 * k] - out[b + 2 * (k - 1)]
                step -= 360 * ((step + 180) / 360).rounded(.down)
                unwrapped += step
            }
            let pole = lat >= 0 ? 90.0 : -90.0
            for k in 0...3 {
                var x = unwrapped + (out[b] - unwrapped) * Double(k) / 3
                x -= 360 * ((x + 180) / 360).rounded(.down)
                out.append(x); out.append(pole)
            }
        }
        out.append(out[b]); out.append(out[b + 1])
    }
}
