import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Polylabel against its published reference cases and against an independent implementation.
///
/// - The reference cases are mapbox/polylabel's own tests (test/test.js, ISC licence): the two
///   degenerate polygons there are inline; `water1.json` and `water2.json` are its fixtures,
///   vendored unchanged with its licence in Fixtures/polylabel/.
/// - GEOS's polylabel (shapely 2.2 `shapely.ops.polylabel`, an implementation of its own) on the
///   largest part of Natural Earth countries (samples/ne_110m_admin_0_countries.geojson) in
///   longitude/latitude at a precision of 0.01°, computed with
///       p = max(parts, key=area); q = polylabel(p, 0.01); p.boundary.distance(q)
///   and pasted here: both must find a pole within the precision of the best distance.
@Suite struct PolylabelTests {
    /// Published expected outputs (mapbox/polylabel test/test.js): fixture, precision, x, y, distance.
    static let published: [(String, Double, Double, Double, Double)] = [
        ("water1", 1, 3865.85009765625, 2124.87841796875, 288.8493574779127),
        ("water1", 50, 3854.296875, 2123.828125, 278.5795872381558),
        ("water2", 1, 3263.5, 3263.5, 960.5),
    ]

    static let fixtureDirectory = URL(fileURLWithPath: TestPaths.repoFile("Tests/MapRenderCoreTests/Fixtures/polylabel"))

    static func rings(_ json: Any?) -> [[Double]] {
        ((json as? [[[Double]]]) ?? []).map { $0.flatMap { $0 } }
    }

    @Test(arguments: published.indices)
    func publishedFixtures(_ k: Int) throws {
        let (name, precision, x, y, distance) = Self.published[k]
        let data = try Data(contentsOf: Self.fixtureDirectory.appendingPathComponent(name + ".json"))
        let rings = Self.rings(try JSONSerialization.jsonObject(with: data))
        let p = try #require(Polylabel.pole(of: rings, precision: precision))
        #expect(p.x == x && p.y == y, "\(name) at \(precision): (\(p.x), \(p.y)), published (\(x), \(y))")
        #expect(abs(p.distance - distance) < 1e-9, "\(name) at \(precision): distance \(p.distance), published \(distance)")
    }

    @Test func publishedDegenerateCases() throws {
        let flat = try #require(Polylabel.pole(of: [[0, 0, 1, 0, 2, 0, 0, 0]]))
        #expect(flat == Polylabel.Pole(x: 0, y: 0, distance: 0))
        let folded = try #require(Polylabel.pole(of: [[0, 0, 1, 0, 1, 1, 1, 0, 0, 0]]))
        #expect(folded.x == 0 && folded.y == 0 && folded.distance == 0)
    }

    @Test func squareWithAHole() throws {
        // A 10 × 10 square: its centre, 5 from every side.
        let square: [Double] = [0, 0, 10, 0, 10, 10, 0, 10, 0, 0]
        let p = try #require(Polylabel.pole(of: [square], precision: 0.01))
        #expect(abs(p.x - 5) < 0.01 && abs(p.y - 5) < 0.01 && abs(p.distance - 5) < 0.01)
        // A 4 × 4 hole in the middle leaves a band 3 wide: 1.5 from both sides in a side's
        // middle, but more in a corner, on the diagonal at (t, t) where t from the two outer
        // sides equals (3 - t)·√2 from the hole's corner: t = 3√2 / (1 + √2).
        let hole: [Double] = [3, 3, 7, 3, 7, 7, 3, 7, 3, 3]
        let q = try #require(Polylabel.pole(of: [square, hole], precision: 0.001))
        let t = 3 * 2.0.squareRoot() / (1 + 2.0.squareRoot())
        #expect(abs(q.distance - t) < 0.002, "distance \(q.distance), expected \(t)")
        #expect(Polylabel.signedDistance(x: 5, y: 5, rings: [square, hole]) < 0, "the hole's middle is outside")
    }

    /// (name, area of the largest part in square degrees, GEOS pole x, y, distance).
    static let geos: [(String, Double, Double, Double, Double)] = [
        ("Canada", 1281.344901, -120.346113, 59.120219, 10.120219),
        ("United States of America", 839.763522, -97.784781, 38.996077, 9.999246),
        ("Indonesia", 43.136759, 114.283676, -1.042924, 2.310423),
        ("Chile", 77.745282, -73.134836, -45.889985, 1.438287),
        ("Norway", 61.577213, 7.592674, 60.631755, 2.394757),
        ("Brazil", 710.185245, -49.005789, -11.909003, 10.224454),
        ("France", 64.627289, 2.391764, 46.640595, 3.634177),
        ("Italy", 29.368300, 10.913980, 45.164038, 1.429801),
        ("Japan", 29.448555, 139.154194, 36.277346, 1.447111),
        ("Egypt", 90.395960, 29.250499, 26.258194, 4.249029),
    ]

    /// Each country's largest part as rings of flat lon, lat pairs, by name.
    static let countries: [String: [[Double]]] = {
        guard let data = FileManager.default.contents(atPath: TestPaths.shared("ne_110m_admin_0_countries.geojson")),
              let fc = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let features = fc["features"] as? [[String: Any]] else { return [:] }
        var out: [String: [[Double]]] = [:]
        for f in features {
            guard let props = f["properties"] as? [String: Any], let geometry = f["geometry"] as? [String: Any],
                  let name = (props["NAME"] ?? props["name"] ?? props["ADMIN"]) as? String else { continue }
            let polygons: [[[[Double]]]]
            if geometry["type"] as? String == "Polygon", let c = geometry["coordinates"] as? [[[Double]]] { polygons = [c] }
            else if let c = geometry["coordinates"] as? [[[[Double]]]] { polygons = c } else { continue }
            let parts = polygons.map { $0.map { $0.flatMap { $0 } } }
            out[name] = parts.max { abs(Polylabel.signedArea($0[0])) < abs(Polylabel.signedArea($1[0])) }
        }
        return out
    }()

    @Test(arguments: geos.indices)
    func agreesWithGEOS(_ k: Int) throws {
        let (name, area, gx, gy, distance) = Self.geos[k]
        let rings = try #require(Self.countries[name], "\(name) not in the countries sample")
        #expect(abs(abs(Polylabel.signedArea(rings[0])) - area) < 1e-3, "\(name): not the part GEOS was given")
        let p = try #require(Polylabel.pole(of: rings, precision: 0.01))
        // Both are within the precision of the best distance, so within it of each other.
        #expect(abs(p.distance - distance) <= 0.01, "\(name): distance \(p.distance), GEOS \(distance)")
        #expect(abs(Polylabel.signedDistance(x: p.x, y: p.y, rings: rings) - p.distance) < 1e-12)
        #expect(Polylabel.signedDistance(x: gx, y: gy, rings: rings) > distance - 1e-5, "\(name): GEOS's pole is as far inside by our measure")
    }

    @Test func boxInsidePolygon() {
        let square: [Double] = [0, 0, 10, 0, 10, 10, 0, 10, 0, 0]
        #expect(Polylabel.contains(Rect(x: 2, y: 2, width: 6, height: 6), rings: [square]))
        #expect(!Polylabel.contains(Rect(x: 2, y: 2, width: 9, height: 6), rings: [square]), "spills over the right side")
        let hole: [Double] = [4, 4, 6, 4, 6, 6, 4, 6, 4, 4]
        #expect(!Polylabel.contains(Rect(x: 1, y: 1, width: 8, height: 8), rings: [square, hole]), "covers the hole")
        #expect(Polylabel.contains(Rect(x: 1, y: 1, width: 2, height: 2), rings: [square, hole]))
    }
}
