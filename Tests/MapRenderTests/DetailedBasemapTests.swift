import TestSupport
import MapRenderCairo
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

    /// Issue 47: lakes at both scales. Points in the lakes (coordinates from gazetteers, not the
    /// data) are water at the scale that draws them, and towns on their shores land; the render
    /// paints a lake in the style's water colour (dark style too) and the land mask counts it as
    /// water.
    @Test func lakesAtBothScales() throws {
        func inLake(_ lon: Double, _ lat: Double, _ lakes: ShapeSet) -> Bool { onLand(lon, lat, lakes) }
        let big: [(String, Double, Double)] = [
            ("Lake Superior", -87.5, 47.7), ("Lake Michigan", -87.0, 43.5), ("Lake Huron", -82.4, 44.8),
            ("Lake Victoria", 33.0, -1.0), ("Lake Baikal", 108.0, 53.5), ("Lake Tanganyika", 29.6, -6.5),
            ("Great Bear Lake", -121.0, 66.0), ("Lake Ladoga", 31.5, 60.8),
        ]
        for (name, lon, lat) in big {
            let at110 = inLake(lon, lat, DefaultBasemap.lakes), at50 = inLake(lon, lat, DefaultBasemap.detailedLakes)
            #expect(at110, "\(name) is not a lake at 1:110m")
            #expect(at50, "\(name) is not a lake at 1:50m")
        }
        let small: [(String, Double, Double)] = [("Lake Geneva", 6.55, 46.45), ("Lake Okeechobee", -80.83, 26.95),
                                                  ("Lake Balaton", 17.75, 46.85)]
        for (name, lon, lat) in small {
            let at50 = inLake(lon, lat, DefaultBasemap.detailedLakes), at110 = inLake(lon, lat, DefaultBasemap.lakes)
            #expect(at50, "\(name) is not a lake at 1:50m")
            #expect(!at110, "\(name) is a lake at 1:110m")
        }
        for (name, lon, lat) in [("Chicago (Loop)", -87.63, 41.88), ("Milwaukee", -87.91, 43.04), ("Duluth airport", -92.19, 46.84)] {
            let wet = inLake(lon, lat, DefaultBasemap.detailedLakes)
            #expect(!wet, "\(name) is in a lake")
        }
        // The render: the view, Lake Michigan at 1:50m in the water colour, light and dark.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lakes-\(UUID()).csv")
        try Data("id,lat,lon\n1,41.88,-87.63\n2,43.04,-87.91\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        for style in [Style.default, try Style.load(path: TestPaths.repoFile("styles/dark.json"))] {
            var r = RenderRequest()
            r.inputs = [url.path]
            r.style = style
            r.view = .bbox(GeoBounds(west: -90.5, south: 40.5, east: -85.5, north: 43))
            r.width = 800; r.height = 500
            let result = try MapRenderer.render(r)
            #expect(result.viewport.zoom >= DefaultBasemap.detailZoom)
            let img = try PNGCodec.decode(data: result.data)
            func colour(_ lon: Double, _ lat: Double) -> (Int, Int, Int) {
                let p = result.viewport.pixel(x: WebMercator.x(lon: lon), y: WebMercator.y(lat: lat))
                let c = img[Int(p.x), Int(p.y)]
                return (Int(c.r), Int(c.g), Int(c.b))
            }
            let water = (Int((style.background.r * 255).rounded()), Int((style.background.g * 255).rounded()), Int((style.background.b * 255).rounded()))
            let lake = colour(-87.0, 42.5), land = colour(-89.5, 41.5)
            #expect(abs(lake.0 - water.0) <= 1 && abs(lake.1 - water.1) <= 1 && abs(lake.2 - water.2) <= 1, "lake \(lake), water \(water)")
            #expect(land != lake)
        }
    }
}
