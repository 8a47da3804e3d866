import Foundation
import MapRenderCore
import Testing
@testable import MapRender

/// Golden images of lines and polygons, each looked at when recorded (and the same maps as the
/// README's pictures): a GPS track joined from rows, a choropleth with its stepped legend, every
/// kind of geometry with simplestyle colours, polygons across the antimeridian. Mapnik checks the
/// drawing itself (MapnikOracleTests); these keep it from drifting.
@Suite struct LayerGoldenTests {
    static func style(_ name: String) throws -> Style { try Style.load(path: TestPaths.repoFile("samples/\(name)")) }

    @Test func gpsTrackAsALine() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.shared("tracks.csv")]
        r.pointLines = PointLines(field: "id", orderBy: "time")
        r.lineOnly = true
        r.style = try Self.style("tracks-style.json")
        r.view = .bbox(GeoBounds(west: 13.996, south: 45.4475, east: 14.041, north: 45.4665))
        r.width = 700; r.height = 450
        r.layout.scaleBar = true
        let result = try MapRenderer.render(r)
        #expect(result.summary.input.geometries == ["LineString": 5])
        try Snapshot.assertMatches(result.data, named: "gps-track", format: .png)
    }

    @Test func choroplethWithSteppedLegend() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.shared("ne_110m_admin_0_countries.geojson")]
        r.style = try Self.style("choropleth.json")
        r.defaultBasemap = false
        r.layout.legend = true
        r.view = .bbox(GeoBounds(west: -25, south: 33, east: 45, north: 70))
        r.width = 800; r.height = 560
        let result = try MapRenderer.render(r)
        let legend = try #require(result.scene.items.compactMap { if case .legend(let l) = $0 { return l } else { return nil } }.first)
        #expect(legend.entries.map(\.text) == ["< 5M", "5M – 20M", "20M – 100M", "≥ 100M"])
        #expect(legend.squareSwatches)
        try Snapshot.assertMatches(result.data, named: "choropleth", format: .png)
    }

    @Test func everyKindOfGeometry() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/geometries.geojson")]
        r.clustering = nil
        r.style.marker.shape = .circle
        r.style.marker.size = 10
        r.layout.labelField = "name"
        r.width = 800; r.height = 500
        let result = try MapRenderer.render(r)
        #expect(result.summary.input.geometries == ["Point": 4, "LineString": 2, "Polygon": 4])
        try Snapshot.assertMatches(result.data, named: "geometries", format: .png)
    }

    @Test func polygonsAcrossTheAntimeridian() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.shared("ne_110m_admin_0_countries.geojson")]
        r.style = try Self.style("choropleth.json")
        r.defaultBasemap = false
        r.view = .bbox(GeoBounds(west: 150, south: 50, east: -150, north: 75))
        r.width = 700; r.height = 400
        let result = try MapRenderer.render(r)
        try Snapshot.assertMatches(result.data, named: "antimeridian-polygons", format: .png)
        // The same map as SVG and PDF keeps the polygons as vector paths.
        r.format = .svg
        let svg = String(decoding: try MapRenderer.render(r).data, as: UTF8.self)
        #expect(svg.components(separatedBy: "<path").count > 10)
        #expect(!svg.contains("<image"))
    }
}
