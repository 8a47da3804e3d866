import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
@testable import MapRender

/// Golden maps of the shipped basemap styles over the Natural Earth vector tiles (each also
/// checked against MapLibre Native without labels in BasemapStyleOracleTests).
@Suite(.serialized) struct BasemapStyleGoldenTests {
    static let light = TestPaths.repoFile("styles/basemap-light.json")
    static let dark = TestPaths.repoFile("styles/basemap-dark.json")

    func request(_ style: String, lat: Double, lon: Double, zoom: Double) throws -> RenderRequest {
        var r = try BasemapStyleOracleTests.request(style: style, lat: lat, lon: lon, zoom: zoom, symbols: true)
        r.layout.scaleBar = true
        return r
    }

    @Test func worldZoom1() throws {
        let out = try MapRenderer.render(try request(Self.light, lat: 20, lon: 0, zoom: 1))
        #expect(out.scene.labels.count > 60)
        try Snapshot.assertMatches(out.data, named: "world-z1-light", format: .png, maxDifferentPixels: 80)
    }

    /// Data points and their labels over the basemap's: the data's labels are placed first, the
    /// basemap's fill the space left, and no two labels (nor a label and a marker) overlap.
    @Test func europeZoom4WithDataLabels() throws {
        var r = try request(Self.dark, lat: 50, lon: 10, zoom: 4)
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("basemap-style-data-\(UUID()).csv")
        // Points at cities the basemap also names: their labels win the space.
        try "name,lat,lon\nBerlin (data),52.52,13.40\nParis (data),48.86,2.35\nWien (data),48.21,16.37\nRoma (data),41.90,12.50\nPraha (data),50.08,14.44\n"
            .write(to: csv, atomically: true, encoding: .utf8)
        r.inputs = [csv.path]
        r.points = nil
        r.layout.labelField = "name"
        let out = try MapRenderer.render(r)
        let labels = out.scene.labels
        let data = labels.filter { $0.owner != nil }, basemap = labels.filter { $0.owner == nil }
        #expect(data.count == 5)
        #expect(basemap.count > 30)
        // Each basemap label the map without data has but this one lacks gave way to a data label
        // or marker: they were placed first.
        let alone = try MapRenderer.render(try request(Self.dark, lat: 50, lon: 10, zoom: 4)).scene.labels
        let dataBoxes = data.map(\.box) + out.scene.markers.flatMap { m in (0..<m.count).map(m.box(at:)) }
        let gone = alone.filter { a in !basemap.contains { $0.text == a.text && $0.box == a.box } }
        #expect(!gone.isEmpty)
        for g in gone {
            #expect(dataBoxes.contains { $0.intersects(g.box) } || basemap.contains { $0.box.intersects(g.box) }, "\(g.text)")
        }
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] { #expect(!a.box.intersects(b.box), "\(a.text) overlaps \(b.text)") }
        }
        for m in out.scene.markers { for k in 0..<m.count { for b in basemap { #expect(!b.box.intersects(m.box(at: k)), "\(b.text) on a marker") } } }
        try Snapshot.assertMatches(out.data, named: "europe-z4-dark-data", format: .png, maxDifferentPixels: 80)
    }

    /// A city view past the tiles' maximum zoom (6): zoom-6 tiles stretched, lines as thin as
    /// the style says at this zoom.
    @Test func cityZoom8Overzoomed() throws {
        let out = try MapRenderer.render(try request(Self.light, lat: 41.85, lon: -87.65, zoom: 8))
        #expect(out.summary.basemapStyle?.tileZoom == 6)
        try Snapshot.assertMatches(out.data, named: "chicago-z8-light", format: .png, maxDifferentPixels: 80)
    }

    /// Basemap labels by symbol-sort-key: with every country label fighting for one small map,
    /// the lower ranks (larger countries) win.
    @Test func sortKeyDecidesWhoWins() throws {
        var r = try request(Self.light, lat: 48, lon: 10, zoom: 2)
        r.width = 300; r.height = 200
        let out = try MapRenderer.render(r)
        let names = Set(out.scene.labels.map(\.text))
        #expect(names.contains("GERMANY") || names.contains("FRANCE"), "\(names)")
        #expect(!names.contains("LUXEMBOURG") && !names.contains("SAN MARINO"))
    }
}
