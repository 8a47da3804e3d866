import Foundation
import MapRenderCore
import Testing
@testable import MapRender

/// Labels along lines and inside polygons on real data, golden images looked at when recorded
/// (the README's picture is the first): Natural Earth countries named at their poles of
/// inaccessibility, a real storm track (tropycal's, joined from rows with `--line-by`) named
/// along itself. The geometry is tested against hand-worked values and GEOS in MapRenderCoreTests
/// (LineLabelPlacementTests, PolylabelTests, ShapeLabelTests); SVG and PDF against the PNG in
/// CrossFormatTests.
@Suite struct LineLabelGoldenTests {
    static func stormAndCountries() -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [TestPaths.shared("ne_110m_admin_0_countries.geojson"), TestPaths.shared("tracks.csv")]
        r.pointLines = PointLines(field: "id", orderBy: "time")
        r.lineOnly = true
        r.layout.labelField = "NAME"
        r.view = .bbox(GeoBounds(west: -160, south: 14, east: -85, north: 58))
        r.width = 900; r.height = 560
        return r
    }

    @Test func stormTrackAndCountriesNamed() throws {
        let result = try MapRenderer.render(Self.stormAndCountries())
        let along = result.scene.pathLabels
        // The Pacific storm's track is named along itself, upright.
        #expect(along.count >= 1 && along.allSatisfy { $0.text == "storm-CP052006" })
        #expect(along.allSatisfy { $0.glyphs.allSatisfy { abs($0.angle) <= .pi / 2 } })
        let named = Set(result.scene.labels.map(\.text))
        #expect(named.isSuperset(of: ["United States of America", "Canada", "Mexico"]), "\(named.sorted())")
        try Snapshot.assertMatches(result.data, named: "storm-and-countries", format: .png)
    }

    @Test func europeNamedAtPoles() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.shared("ne_110m_admin_0_countries.geojson")]
        r.style = try Style.load(path: TestPaths.repoFile("samples/choropleth.json"))
        r.defaultBasemap = false
        r.layout.labelField = "NAME"
        r.view = .bbox(GeoBounds(west: -12, south: 35, east: 32, north: 61))
        r.width = 800; r.height = 640
        let result = try MapRenderer.render(r)
        let named = Set(result.scene.labels.map(\.text))
        #expect(named.isSuperset(of: ["France", "Spain", "Germany", "Poland", "Italy"]), "\(named.sorted())")
        // Too small at this scale for their names: left out, not spilled over their borders.
        #expect(!named.contains("Luxembourg"))
        try Snapshot.assertMatches(result.data, named: "europe-poles", format: .png)
    }

    /// `--label` may name a property only the lines or polygons have (the countries' NAME beside
    /// the tracks' rows); a property nothing has is still refused, naming it.
    @Test func labelOnAMissingPropertyIsRefused() throws {
        var r = Self.stormAndCountries()
        r.layout.labelField = "NAMEZ"
        #expect {
            try MapRenderer.render(r)
        } throws: { error in
            let e = error as? MapRenderError
            return e?.kind == .usage && e?.message.contains("label reads 'NAMEZ'") == true
        }
    }
}
