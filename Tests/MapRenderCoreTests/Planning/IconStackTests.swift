import Foundation
import Testing
@testable import MapRenderCore
import TestSupport

/// Icons that hide one another are a stack (`MarkPlanner.iconStacks`): spread by the stack rules
/// as pins on one coordinate are, or shown as a count when they have no room.
@Suite struct IconStackTests {
    static let cafe = MarkerIcon(file: "cafe.svg", format: .svg, bytes: Array("<svg/>".utf8), width: 22, height: 22,
                                 anchor: .center, pinLike: false)
    static let flag = MarkerIcon(file: "flag.svg", format: .svg, bytes: Array("<svg/>".utf8), width: 16, height: 28,
                                 anchor: .bottom, pinLike: true)

    /// Points with a `kind`: "cafe" and "flag" draw those icons, anything else the pin.
    static func style() throws -> Style {
        var s = Style.default
        s.marker.icon = try StyleExpression.parse(jsonText: #"["match", ["get", "kind"], "cafe", "cafe.svg", "flag", "flag.svg", ""]"#,
                                                  file: "test", path: "marker.icon", expecting: .string)
        s.marker.icons = ["cafe.svg": cafe, "flag.svg": flag]
        return s
    }

    static func points(_ rows: [(lon: Double, lat: Double, kind: String)]) -> PointSet {
        var p = PointSet()
        let kind = p.properties.addColumn("kind")
        for r in rows { p.lon.append(r.lon); p.lat.append(r.lat); p.properties.appendRow([(kind, .string(r.kind))]) }
        return p
    }

    static func options() -> PlanOptions {
        var o = PlanOptions()
        o.width = 800; o.height = 600; o.padding = 16
        o.clustering = nil
        o.view = .center(lat: 0, lon: 0, zoom: 6)
        return o
    }

    /// The drawn box of marker m.
    static func box(_ plan: MapPlan, _ m: Int) -> Rect {
        let s = plan.data.styles.symbols[Int(plan.data.styles.index[plan.marks.markerPoint[m]])]
        return SpreadFallback.box(s.extent, plan.marks.markerX[m], plan.marks.markerY[m])
    }

    /// Whether two boxes cover at least a quarter of each other (centres closer than half their
    /// mean width and half their mean height): the overlap `iconStacks` groups.
    static func hides(_ a: Rect, _ b: Rect) -> Bool {
        let dx = (a.x + a.width / 2) - (b.x + b.width / 2), dy = (a.y + a.height / 2) - (b.y + b.height / 2)
        return abs(dx) < (a.width + b.width) / 4 && abs(dy) < (a.height + b.height) / 4
    }

    /// Property over generated maps: sparse places, each a lone icon or pin, or a cluster of 2–5
    /// icons (and pins) jittered within a few pixels, some on one coordinate. After planning, no
    /// two drawn icons hide each other, and every point is drawn as a marker or counted in a
    /// bubble or badge (none lost). The maps do hold icons that hide each other where their data
    /// puts them (counted): drawn there, as before icon stacks, the property would not hold.
    @Test func drawnIconsNeverHideEachOther() throws {
        var rng = SeededRandom(seed: 48)
        let style = try Self.style()
        var stacksSeen = 0, hidingAtTheirPoints = 0
        for round in 0..<40 {
            var rows: [(lon: Double, lat: Double, kind: String)] = []
            for _ in 0..<Int.random(in: 5...25, using: &rng) {
                // Zoom 6: a degree is about 91 px; places at least half a degree apart mostly.
                let lon = Double.random(in: -3.8...3.8, using: &rng), lat = Double.random(in: -2.8...2.8, using: &rng)
                let n = Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: 2...5, using: &rng) : 1
                for k in 0..<n {
                    let jitter = k == 0 || Int.random(in: 0..<4, using: &rng) == 0 ? 0.0 : 0.12
                    let kind = ["cafe", "cafe", "flag", "pin"][Int.random(in: 0..<4, using: &rng)]
                    rows.append((lon + Double.random(in: -jitter...jitter, using: &rng),
                                 lat + Double.random(in: -jitter...jitter, using: &rng), kind))
                }
            }
            let plan = MapPlanner.plan(points: Self.points(rows), style: style, options: Self.options())
            // Icon pairs that hide each other at their true positions.
            let trueBoxes: [Rect] = rows.indices.compactMap { i in
                let s = plan.data.styles.symbols[Int(plan.data.styles.index[i])]
                guard s.icon != nil else { return nil }
                let p = plan.viewport.pixel(x: plan.data.x[i], y: plan.data.y[i])
                return SpreadFallback.box(s.extent, p.x, p.y)
            }
            for a in trueBoxes.indices { for b in trueBoxes.indices where b > a && Self.hides(trueBoxes[a], trueBoxes[b]) { hidingAtTheirPoints += 1 } }
            stacksSeen += plan.marks.spreadGroups.count + plan.marks.spreadFallbacks
            let icons = plan.marks.markerPoint.indices.filter {
                plan.data.styles.symbols[Int(plan.data.styles.index[plan.marks.markerPoint[$0]])].icon != nil
            }
            for a in icons.indices {
                for b in icons.indices where b > a {
                    let ba = Self.box(plan, icons[a]), bb = Self.box(plan, icons[b])
                    #expect(!Self.hides(ba, bb), "round \(round): icons of points \(plan.marks.markerPoint[icons[a]]) and \(plan.marks.markerPoint[icons[b]]) hide each other: \(ba) \(bb)")
                }
            }
            let counted = plan.marks.markerPoint.count + plan.marks.bubbles.reduce(0) { $0 + $1.count }
            #expect(counted == rows.count, "round \(round): \(counted) of \(rows.count) points drawn or counted")
        }
        #expect(stacksSeen > 40)
        #expect(hidingAtTheirPoints > 40, "the maps hold icons hiding each other at their points: \(hidingAtTheirPoints)")
    }

    /// Two café icons 9 px apart (Café de Flore and Les Deux Magots at the README's zoom) are one
    /// stack of two, spread apart with legs from their shared position; a café 30 px away from
    /// them (overlapping neither by a quarter) stays where it is, as does a pin under a café.
    @Test func twoCafesNinePixelsApartAreSpread() throws {
        var o = Self.options()
        o.view = .center(lat: 0, lon: 0, zoom: 10)
        // Zoom 10: 512 * 1024 px round the world, 0.00618° a 9 px step at the equator.
        let px = 360.0 / (512 * 1024)
        let rows: [(lon: Double, lat: Double, kind: String)] = [
            (0, 0, "cafe"), (9 * px, 0, "cafe"), (-30 * px, 0, "cafe"), (200 * px, 0, "cafe"), (200 * px, 0, "pin"),
        ]
        let plan = MapPlanner.plan(points: Self.points(rows), style: try Self.style(), options: o)
        // The pair, and the café and pin on one coordinate (as before).
        #expect(Set(plan.marks.spreadGroups.map(\.members)) == [[0, 1], [3, 4]])
        // The pair: no longer on each other.
        let m0 = try #require(plan.marks.markerPoint.firstIndex(of: 0)), m1 = try #require(plan.marks.markerPoint.firstIndex(of: 1))
        #expect(!Self.hides(Self.box(plan, m0), Self.box(plan, m1)))
        // The café 30 px west stays on its point.
        let m2 = try #require(plan.marks.markerPoint.firstIndex(of: 2))
        let at = plan.viewport.pixel(x: WebMercator.x(lon: -30 * px), y: WebMercator.y(lat: 0))
        #expect(abs(plan.marks.markerX[m2] - at.x) < 1e-6 && abs(plan.marks.markerY[m2] - at.y) < 1e-6)
    }

    /// A carpet of icons (a chain of more than `--spread-max` hiding each other) is drawn as it
    /// is, as a carpet of pins: no bubble of thousands, no spiral.
    @Test func aCarpetOfIconsStaysACarpet() throws {
        var rows: [(lon: Double, lat: Double, kind: String)] = []
        for k in 0..<200 { rows.append((Double(k % 20) * 0.05, Double(k / 20) * 0.05, "cafe")) }
        var o = Self.options()
        o.view = .center(lat: 0.2, lon: 0.5, zoom: 6)
        let plan = MapPlanner.plan(points: Self.points(rows), style: try Self.style(), options: o)
        #expect(plan.marks.spreadGroups.isEmpty && plan.marks.bubbles.isEmpty)
        #expect(plan.marks.markerPoint.count == 200)
    }
}
