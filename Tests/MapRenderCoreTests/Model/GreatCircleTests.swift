import Foundation
import Testing
@testable import MapRenderCore

/// Great circles and geodesic circles against values computed independently: GeographicLib 2.0
/// (Karney's geodesics, Debian python3-geographiclib) on a sphere of radius 6371008.8 m, and the
/// midpoint worked in movable-type.co.uk's "Calculate distance, bearing and more between
/// Latitude/Longitude points" (54°21′44″N 004°31′50″W). The GeographicLib values were computed with
///     from geographiclib.geodesic import Geodesic
///     S = Geodesic(6371008.8, 0); l = S.InverseLine(lat1, lon1, lat2, lon2); l.Position(l.s13 / 2)
///     S.Direct(lat, 20, azimuth, 50000)
/// and pasted here; nothing below comes from this code.
@Suite struct GreatCircleTests {
    static func close(_ a: Double, _ b: Double, _ tol: Double) -> Bool { abs(a - b) <= tol }

    /// (name, origin, destination, GeographicLib midpoint (lat, lon), distance m).
    static let midpoints: [(String, (Double, Double), (Double, Double), (Double, Double), Double)] = [
        ("JFK to Hong Kong over the Arctic", (40.63975111, -73.77892556), (22.3080, 113.9185), (78.977852311, 144.327505088), 12_970_462.786),
        ("Los Angeles to Tokyo across 180°", (33.94253611, -118.4080744), (35.7647, 140.3864), (47.651902611, -168.238309832), 8_753_789.423),
        ("Nadi to Papeete across 180°", (-17.7554, 177.4434), (-17.5537, -149.6066), (-18.360656225, -166.072107594), 3_486_827.450),
        ("Land's End to John o' Groats", (dms(50, 3, 59), -dms(5, 42, 53)), (dms(58, 38, 38), -dms(3, 4, 12)),
         (54.362286828, -4.530672527), 968_854.885),
        ("Sydney to Los Angeles across 180° and the equator", (-33.9461, 151.1772), (33.94253611, -118.4080744), (-0.002529221, -163.614229068), 12_061_124.270),
    ]

    @Test(arguments: midpoints.indices)
    func midpointsMatchGeographicLib(_ k: Int) throws {
        let (name, a, b, mid, metres) = Self.midpoints[k]
        let m = try #require(GreatCircle.intermediate(lat1: a.0, lon1: a.1, lat2: b.0, lon2: b.1, fraction: 0.5))
        #expect(Self.close(m.lat, mid.0, 1e-7), "\(name): latitude \(m.lat), GeographicLib \(mid.0)")
        #expect(Self.close(m.lon, mid.1, 1e-7), "\(name): longitude \(m.lon), GeographicLib \(mid.1)")
        let d = GreatCircle.distance(lat1: a.0, lon1: a.1, lat2: b.0, lon2: b.1)
        #expect(Self.close(d, metres, 0.01), "\(name): \(d) m, GeographicLib \(metres) m")
    }

    /// The published worked example, to its rounding (a second of arc).
    static func dms(_ d: Double, _ m: Double, _ s: Double) -> Double { d + m / 60 + s / 3600 }

    @Test func midpointMatchesThePublishedExample() throws {
        let lat1 = Self.dms(50, 3, 59), lon1 = -Self.dms(5, 42, 53), lat2 = Self.dms(58, 38, 38), lon2 = -Self.dms(3, 4, 12)
        let m = try #require(GreatCircle.intermediate(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, fraction: 0.5))
        let lat = Self.dms(54, 21, 44), lon = -Self.dms(4, 31, 50)
        #expect(Self.close(m.lat, lat, 1.0 / 3600))
        #expect(Self.close(m.lon, lon, 1.0 / 3600))
    }

    @Test func aQuarterOfTheWayAcross180() throws {
        let q = try #require(GreatCircle.intermediate(lat1: -33.9461, lon1: 151.1772, lat2: 33.94253611, lon2: -118.4080744, fraction: 0.25))
        #expect(Self.close(q.lat, -18.283110832, 1e-7) && Self.close(q.lon, 176.002630117, 1e-7), "\(q)")
    }

    /// An arc across 180° runs the short way: consecutive vertices never more than the step
    /// apart (no jump round the world), and it crosses the antimeridian once.
    @Test func arcsCross180TheShortWay() throws {
        let arc = try #require(GreatCircle.arc(lat1: 33.94253611, lon1: -118.4080744, lat2: 35.7647, lon2: 140.3864))
        #expect(arc.count / 2 == Int((8_753_789.423 / GreatCircle.earthRadius * 180 / .pi).rounded(.up)) + 1)
        #expect(arc[0] == -118.4080744 && arc[1] == 33.94253611 && arc[arc.count - 2] == 140.3864 && arc[arc.count - 1] == 35.7647)
        var crossings = 0
        for k in 1..<(arc.count / 2) {
            let step = GreatCircle.angle(lat1: arc[2 * k - 1], lon1: arc[2 * k - 2], lat2: arc[2 * k + 1], lon2: arc[2 * k])
            #expect(step * 180 / .pi <= GreatCircle.stepDegrees + 1e-9)
            if abs(arc[2 * k] - arc[2 * k - 2]) > 180 { crossings += 1 }
        }
        #expect(crossings == 1)
        // Every vertex lies on the great circle: its distances to the ends add up to the whole.
        for k in 0..<(arc.count / 2) {
            let a = GreatCircle.distance(lat1: 33.94253611, lon1: -118.4080744, lat2: arc[2 * k + 1], lon2: arc[2 * k])
            let b = GreatCircle.distance(lat1: arc[2 * k + 1], lon1: arc[2 * k], lat2: 35.7647, lon2: 140.3864)
            #expect(Self.close(a + b, 8_753_789.423, 0.05))
        }
        // The projected arc, unwrapped as ShapeLayout and FitSamples unwrap it, is continuous.
        var shapes = ShapeSet()
        shapes.add(kind: .line, rings: [arc], feature: 0)
        var xs: [Double] = []
        shapes.forEachUnwrappedVertex(ofRing: 0) { x, _, _ in xs.append(x) }
        for k in 1..<xs.count { #expect(abs(xs[k] - xs[k - 1]) < 1.0 / 180) }
        // Los Angeles to Tokyo runs west across 180°: unwrapped, Tokyo lies west of x = 0.
        #expect(xs.last! < 0 && xs.last! > -0.2, "unwrapped west across 180°: \(xs.last!)")
    }

    /// `appendArc` takes the ends' sines and cosines once per arc: its vertices are still
    /// `intermediate`'s at k / steps, bit for bit, on 2,000 arcs between random places (across
    /// 180°, near the poles, short and long).
    @Test func arcVerticesAreTheIntermediatePlacesBitForBit() throws {
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<2000 {
            let lat1 = Double.random(in: -89...89, using: &rng), lon1 = Double.random(in: -180...180, using: &rng)
            let lat2 = Double.random(in: -89...89, using: &rng), lon2 = Double.random(in: -180...180, using: &rng)
            guard let arc = GreatCircle.arc(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) else { continue }
            let steps = arc.count / 2 - 1
            let d = GreatCircle.angle(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            #expect(steps == max(1, Int((d * 180 / .pi / GreatCircle.stepDegrees).rounded(.up))))
            for k in 1..<steps {
                let p = try #require(GreatCircle.intermediate(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, fraction: Double(k) / Double(steps)))
                #expect(arc[2 * k].bitPattern == p.lon.bitPattern && arc[2 * k + 1].bitPattern == p.lat.bitPattern,
                        "(\(lat1), \(lon1)) -> (\(lat2), \(lon2)) vertex \(k)")
                checked += 1
            }
        }
        #expect(checked > 100_000)
    }

    /// The true arc, `intermediate` at `n` + 1 fractions, in world units (WebMercator), each x
    /// the copy nearest the previous one: another path to the arc than the vector sums of
    /// `forEachGreatCircleVertex` and `latitudeRange`.
    static func sampledArc(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, n: Int) throws -> [(x: Double, y: Double, lat: Double)] {
        var out: [(x: Double, y: Double, lat: Double)] = []
        for k in 0...n {
            let p = try #require(GreatCircle.intermediate(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, fraction: Double(k) / Double(n)))
            var x = WebMercator.x(lon: p.lon)
            if let last = out.last { x += (last.x - x).rounded() }
            out.append((x, WebMercator.y(lat: p.lat), p.lat))
        }
        return out
    }

    /// The arcs of `midpoints`, the equator crossed square in the middle (a piece centred on
    /// the inflection of a great circle's image has its middle on its chord), steep ones near
    /// the meridian, and short ones.
    static let drawnArcs: [(Double, Double, Double, Double)] = midpoints.map { ($0.1.0, $0.1.1, $0.2.0, $0.2.1) } + [
        (-60, -30, 60, 30), (-70, 100, 70, 110), (-50, 170, 50, -170), (40, 10, 41, 10.5), (0, 0, 0, 170), (-84, 0, 84, 20),
    ]

    /// An arc's extent: its ends' latitudes or the vertex it passes, against the highest and
    /// lowest of 20,000 places along it (`intermediate`); JFK to Hong Kong tops at 83.96°N (the
    /// highest of 100,001 places along it, by a separate spherical interpolation in Python),
    /// far north of its midpoint (78.98°N, GeographicLib's, `midpoints`).
    @Test func latitudeRangeIsTheArcsExtent() throws {
        for (lat1, lon1, lat2, lon2) in Self.drawnArcs + [(10, 20, 30, 40), (70, 0, 70, 90), (-70, 0, -70, 90), (5, 0, 5, 0.001)] {
            let e = GreatCircle.latitudeRange(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            let lats = try Self.sampledArc(lat1, lon1, lat2, lon2, n: 20_000).map(\.lat)
            // A sample lies within (π / 20,000)² / 8 rad (1e-8°) of the arc's top below it.
            #expect(Self.close(e.north, lats.max()!, 1e-6) && e.north >= lats.max()! - 1e-12, "(\(lat1), \(lon1)) -> (\(lat2), \(lon2)): north \(e.north), sampled \(lats.max()!)")
            #expect(Self.close(e.south, lats.min()!, 1e-6) && e.south <= lats.min()! + 1e-12, "(\(lat1), \(lon1)) -> (\(lat2), \(lon2)): south \(e.south), sampled \(lats.min()!)")
        }
        let jfkHongKong = GreatCircle.latitudeRange(lat1: 40.63975111, lon1: -73.77892556, lat2: 22.3080, lon2: 113.9185)
        #expect(Self.close(jfkHongKong.north, 83.961085, 1e-5) && jfkHongKong.south == 22.3080, "\(jfkHongKong)")
        #expect(GreatCircle.latitudeRange(lat1: 10, lon1: 20, lat2: 30, lon2: 40) == (10, 30))
    }

    /// Arcs drawn at a view's resolution (`ShapeSet.forEachGreatCircleVertex`) lie within the
    /// tolerance of the true arc (20,000 places along it by `intermediate`, each within the
    /// tolerance of the drawn path), begin and end at the arc's projected ends, and never jump
    /// round the world; at a finer tolerance they have more vertices.
    @Test func drawnArcsStayWithinTheToleranceOfTheTrueArc() throws {
        for ws in [512.0, 4096.0, 65536.0] {
            let tolerance = 0.1 / ws   // 0.1 px at a world this many px wide
            for (lat1, lon1, lat2, lon2) in Self.drawnArcs {
                var shapes = ShapeSet()
                shapes.add(kind: .line, rings: [[lon1, lat1, lon2, lat2]], feature: 0, greatCircle: true)
                var path: [(Double, Double)] = []
                shapes.forEachGreatCircleVertex(ofRing: 0, tolerance: tolerance) { x, y in path.append((x, y)) }
                var ends: [(Double, Double)] = []
                shapes.forEachUnwrappedVertex(ofRing: 0) { x, y, _ in ends.append((x, y)) }
                #expect(path.first! == ends.first! && path.last! == ends.last!)
                for k in 1..<path.count { #expect(abs(path[k].0 - path[k - 1].0) < 0.5) }
                let truth = try Self.sampledArc(lat1, lon1, lat2, lon2, n: 20_000)
                // The true arc's x in the drawn path's copy of the world.
                let shift = (path[0].0 - truth[0].x).rounded()
                var worst = 0.0, near = 1
                for t in truth {
                    // Both in order along the arc: the nearest segment is near the last one's.
                    var best = Double.infinity, at = near
                    for k in max(1, near - 4)..<min(path.count, near + 64) {
                        let ax = path[k - 1].0, ay = path[k - 1].1, dx = path[k].0 - ax, dy = path[k].1 - ay
                        let px = t.x + shift - ax, py = t.y - ay
                        let u = min(max((px * dx + py * dy) / max(dx * dx + dy * dy, 1e-300), 0), 1)
                        let d2 = (px - u * dx) * (px - u * dx) + (py - u * dy) * (py - u * dy)
                        if d2 < best { best = d2; at = k }
                    }
                    near = at
                    worst = max(worst, best.squareRoot())
                }
                #expect(worst <= tolerance * 1.01, "(\(lat1), \(lon1)) -> (\(lat2), \(lon2)) at \(ws) px: \(worst * ws) px off, \(path.count) vertices")
            }
        }
        var coarse = 0, fine = 0
        var shapes = ShapeSet()
        shapes.add(kind: .line, rings: [[-118.4080744, 33.94253611, 140.3864, 35.7647]], feature: 0, greatCircle: true)
        shapes.forEachGreatCircleVertex(ofRing: 0, tolerance: 0.1 / 1024) { _, _ in coarse += 1 }
        shapes.forEachGreatCircleVertex(ofRing: 0, tolerance: 0.1 / 16384) { _, _ in fine += 1 }
        #expect(coarse >= 6 && fine > 3 * coarse, "\(coarse), \(fine)")
    }

    /// Arcs from rows are lines of their two ends marked `greatCircle` (an arc over a pole
    /// excepted); the mark follows a shape through `append` and `selecting`, and its box reaches
    /// the arc's top (JFK to Hong Kong, 83.96°N), not only its ends' latitudes.
    @Test func arcsFromRowsAreMarkedGreatCircles() throws {
        var points = PointSet()
        let la = points.properties.addColumn("to_lat"), lo = points.properties.addColumn("to_lon")
        for (lat, lon, tlat, tlon) in [(40.63975111, -73.77892556, 22.3080, 113.9185), (70.0, 0.0, 70.0, 180.0)] {
            points.lat.append(lat); points.lon.append(lon)
            points.properties.appendRow([(la, .number(tlat)), (lo, .number(tlon))])
        }
        let made = PointArcs(latField: "to_lat", lonField: "to_lon").arcs(from: points).shapes
        #expect(made.shapeCount == 2 && made.isGreatCircle(0) && !made.isGreatCircle(1))
        #expect(made.vertices(of: made.rings(of: 0).lowerBound).count == 2)
        var set = ShapeSet()
        set.add(kind: .line, rings: [[0, 0, 1, 1]], feature: 0)
        set.append(contentsOf: made)
        #expect(set.greatCircle == [false, true, false])
        let picked = set.selecting([1, 2])
        #expect(picked.greatCircle == [true, false])
        var boxed = picked
        boxed.computeBoxes()
        let box = try #require(boxed.boxes)
        #expect(Self.close(box[3], 83.961085, 1e-5) && box[2] == 22.3080, "\(box)")
        let samples = FitSamples(shapes: made.selecting([0]))
        #expect(Self.close(samples.ys.min()!, WebMercator.y(lat: box[3]), 1e-12))
    }

    @Test func antipodesHaveNoSingleGreatCircle() {
        #expect(GreatCircle.arc(lat1: 10, lon1: 20, lat2: -10, lon2: -160) == nil)
        #expect(GreatCircle.intermediate(lat1: 10, lon1: 20, lat2: -10, lon2: -160, fraction: 0.5) == nil)
    }

    /// (latitude, azimuth, GeographicLib's destination 50 km away on a 6371008.8 m sphere).
    static let destinations: [(Double, Double, Double, Double)] = [
        (0, 0, 0.449660182, 20), (0, 45, 0.317956132, 20.317961028), (0, 90, 0, 20.449660182),
        (70, 0, 70.449660182, 20), (70, 45, 70.315494774, 20.943974233), (70, 90, 69.995152725, 21.314514725),
        (70, 180, 69.550339818, 20), (70, 270, 69.995152725, 18.685485275),
        (-70, 45, -69.679656430, 20.915625537), (85, 90, 84.979872437, 25.145500142),
    ]

    @Test(arguments: destinations.indices)
    func destinationsMatchGeographicLib(_ k: Int) {
        let (lat, azimuth, lat2, lon2) = Self.destinations[k]
        let p = GreatCircle.destination(lat: lat, lon: 20, distance: 50_000, bearing: azimuth)
        #expect(Self.close(p.lat, lat2, 1e-8) && Self.close(p.lon, lon2, 1e-8), "\(lat)° \(azimuth)°: \(p), GeographicLib \(lat2), \(lon2)")
    }

    /// A 50 km circle at 70° is 50 km from its centre all round (and 2.9 times as tall as wide
    /// in Web Mercator degrees: 1 / cos 70°); against WGS84's distances (GeographicLib), within 0.5 %.
    @Test func circleRadiusAtHighLatitude() {
        let ring = GreatCircle.circle(lat: 70, lon: 20, radius: 50_000, segments: 64)
        #expect(ring.count == 2 * 65)
        #expect(ring[0] == ring[ring.count - 2] && ring[1] == ring[ring.count - 1])
        var minLon = Double.infinity, maxLon = -Double.infinity, minLat = Double.infinity, maxLat = -Double.infinity
        for k in 0..<64 {
            let d = GreatCircle.distance(lat1: 70, lon1: 20, lat2: ring[2 * k + 1], lon2: ring[2 * k])
            #expect(Self.close(d, 50_000, 1e-3))
            minLon = min(minLon, ring[2 * k]); maxLon = max(maxLon, ring[2 * k])
            minLat = min(minLat, ring[2 * k + 1]); maxLat = max(maxLat, ring[2 * k + 1])
        }
        #expect(Self.close(maxLon - 20, 1.314514725, 1e-6) && Self.close(maxLat, 70.449660182, 1e-8))
        // GeographicLib on WGS84: the sphere's vertices due north and due east lie 50166 m and
        // 50205 m from the centre (0.33 % and 0.41 % long).
        #expect(abs(50_166.271 - 50_000) / 50_000 < 0.005 && abs(50_204.540 - 50_000) / 50_000 < 0.005)
    }

    /// A circle around the north pole closes along the map's top edge, so it fills the cap.
    @Test func circleAroundAPole() {
        let ring = GreatCircle.circle(lat: 80, lon: 0, radius: 2_000_000, segments: 32)
        #expect(ring.count == 2 * (32 + 4 + 1))
        #expect((32..<36).allSatisfy { ring[2 * $0 + 1] == 90 })
        var shapes = ShapeSet()
        shapes.add(kind: .polygon, rings: [ring], feature: 0)
        var xs: [Double] = []
        shapes.forEachUnwrappedVertex(ofRing: 0) { x, _, _ in xs.append(x) }
        // Once round the world along the circle, and back along the pole.
        #expect(abs(xs[32] - xs[0]) > 0.9 && abs(xs[32] - xs[0]) < 1)
        #expect(abs(xs[xs.count - 1] - xs[0]) < 1e-9)
    }

    /// An arc over the North Pole (70°N 0° to 70°N 180°) is drawn in two parts, each ending
    /// at 85.05°N where Web Mercator's map ends: no vertex beyond it, nothing along the edge.
    @Test func arcsOverAPoleStopAtTheMapsEdge() throws {
        var points = PointSet()
        let la = points.properties.addColumn("to_lat"), lo = points.properties.addColumn("to_lon")
        for (lat, lon, tlat, tlon) in [(70.0, 0.0, 70.0, 180.0), (10.0, 20.0, 30.0, 40.0), (89.0, 0.0, 88.0, 180.0)] {
            points.lat.append(lat); points.lon.append(lon)
            points.properties.appendRow([(la, .number(tlat)), (lo, .number(tlon))])
        }
        let made = PointArcs(latField: "to_lat", lonField: "to_lon").arcs(from: points)
        #expect(made.shapes.shapeCount == 2)
        #expect(made.skipped.message == "--to-lat/--to-lon: skipped 1 row: 1 arc lies beyond ±85.05° (the map's edge) (point 2)")
        let polar = made.shapes.rings(of: 0)
        #expect(polar.count == 2)
        for r in polar {
            let v = made.shapes.vertices(of: r)
            #expect(v.allSatisfy { abs(made.shapes.coords[2 * $0 + 1]) <= WebMercator.maxLatitude })
            let ends = [v.lowerBound, v.upperBound - 1].map { made.shapes.coords[2 * $0 + 1] }
            #expect(ends.contains(WebMercator.maxLatitude) && ends.contains(70))
        }
        #expect(made.shapes.rings(of: 1).count == 1)
    }
}
