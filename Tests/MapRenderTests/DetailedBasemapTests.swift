import TestSupport
import Foundation
import Testing
@testable import MapRenderCore
@testable import MapRender

/// Issue 13: the built-in land is Natural Earth 1:110m for world views and 1:50m from zoom 3 on.
@Suite struct DetailedBasemapTests {
    func onLand(_ lon: Double, _ lat: Double, _ shapes: ShapeSet) -> Bool { DenseLayoutTests.onLand(lon, lat, shapes) }

    /// Towns on islands that 1:110m leaves out or draws as a blob (coordinates from the towns, not
    /// from the data): on land at 1:50m; most of them at sea at 1:110m.
    @Test func islandTownsAreOnLandAt50m() {
        let towns: [(String, Double, Double)] = [
            ("Palma, Mallorca", 2.65, 39.57), ("Valletta, Malta", 14.51, 35.90), ("Madeira (interior)", -16.95, 32.75),
            ("Tórshavn, Faroes", -6.77, 62.01), ("Ajaccio, Corsica", 8.74, 41.93), ("Victoria, Mahé", 55.45, -4.62),
            ("Hamilton, Bermuda", -64.78, 32.29), ("Las Palmas, Gran Canaria", -15.43, 28.12),
        ]
        var at110 = 0
        for (name, lon, lat) in towns {
            #expect(onLand(lon, lat, DefaultBasemap.detailed), "\(name) is at sea at 1:50m")
            if onLand(lon, lat, DefaultBasemap.shapes) { at110 += 1 }
        }
        #expect(at110 <= 2, "\(at110) of the towns are on 1:110m land")
        // 1:50m is the finer data: about ten times the vertices, under half a megabyte encoded.
        #expect(DefaultBasemap.detailed.coords.count > 8 * DefaultBasemap.shapes.coords.count)
        #expect(DefaultBasemap.countries50m.utf8.count < 600_000)
    }

    /// The render picks the scale by zoom: a world view draws 1:110m's polygons, a view of the
    /// Balearics 1:50m's (Mallorca drawn, which 1:110m has not).
    @Test func renderPicksTheScaleByZoom() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("islands-\(UUID()).csv")
        try Data("id,lat,lon\n1,39.57,2.65\n2,38.9,1.43\n3,-33.9,151.2\n4,64.1,-21.9\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.width = 640; r.height = 480
        let world = try MapRenderer.render(r)
        #expect(world.viewport.zoom < DefaultBasemap.detailZoom)
        r.view = .bbox(GeoBounds(west: 0.5, south: 38.5, east: 4.5, north: 40.2))
        let islands = try MapRenderer.render(r)
        #expect(islands.viewport.zoom >= DefaultBasemap.detailZoom)
        func polygons(_ s: Scene) -> Int { s.markCounts["polygon"] ?? 0 }
        // Only Mallorca, Menorca, Ibiza and the coast of Spain are in view: 1:110m has Spain only.
        #expect(polygons(islands.scene) >= 4, "\(polygons(islands.scene)) polygons")
        #expect(polygons(world.scene) > 100)
        try Snapshot.assertMatches(islands.data, named: "balearics-50m", format: .png, maxDifferentPixels: 40)
    }
}
