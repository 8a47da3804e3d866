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

    /// Names in joining scripts along curved lines: Arabic (letters joined, right to left) and
    /// Devanagari (a vowel sign drawn before its consonant, an anusvara): each name shaped by
    /// Pango as a whole and placed along the curve cluster by cluster (`PathLabelShapingTests`
    /// checks the glyphs against Pango's shaping of the name in one run). Looked at when
    /// recorded: the letters join; before, each was drawn in its isolated form.
    @Test func joiningScriptsAlongCurves() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("joining-\(UUID()).geojson")
        defer { try? FileManager.default.removeItem(at: url) }
        func curve(_ lat: Double, _ name: String) -> String {
            let coords = (0...100).map { k in
                let x = Double(k) * 0.1
                return "[\(30 + x),\(lat + 1.2 * sin(x * 0.9))]"
            }
            return #"{"type":"Feature","properties":{"name":"\#(name)"},"geometry":{"type":"LineString","coordinates":[\#(coords.joined(separator: ","))]}}"#
        }
        let names = ["نهر النيل", "القاهرة الجديدة", "गंगा नदी"]
        let features = zip([30.0, 26, 22], names).map { curve($0, $1) }
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: url)
        var r = RenderRequest()
        r.inputs = [url.path]
        r.layout.labelField = "name"
        r.defaultBasemap = false
        r.width = 700; r.height = 500
        let result = try MapRenderer.render(r)
        let along = result.scene.pathLabels
        #expect(Set(along.map(\.text)) == Set(names))
        // Every cluster knows where it starts in its name, so the backend finds its shaped glyphs.
        #expect(along.allSatisfy { l in l.glyphs.allSatisfy { $0.start >= 0 && l.text.utf8.count > $0.start } })
        try Snapshot.assertMatches(result.data, named: "joining-scripts-along-curves", format: .png)
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
