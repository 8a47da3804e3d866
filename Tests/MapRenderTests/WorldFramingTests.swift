import TestSupport
import Foundation
import Testing
import MapRenderCairo
import MapRenderCore
@testable import MapRender

/// Issue 13, items 3, 5, 6, 7 and 8: dense dots keep their colour, world maps are framed on one
/// copy of the world, land is drawn by default, cuts at 180° have no outline, the scale bar is
/// left out where Mercator's scale varies too much.
@Suite struct WorldFramingTests {
    func csvFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pts-\(UUID()).csv")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Mean colour (0...1 per channel) of a pixel rectangle.
    func meanColour(_ img: RGBAImage, x0: Int, y0: Int, x1: Int, y1: Int) -> (Double, Double, Double) {
        var r = 0.0, g = 0.0, b = 0.0
        for y in y0..<y1 { for x in x0..<x1 { let p = img[x, y]; r += Double(p.r); g += Double(p.g); b += Double(p.b) } }
        let n = Double((x1 - x0) * (y1 - y0)) * 255
        return (r / n, g / n, b / n)
    }

    /// A 60x60 field of 4 px circles 2 px apart (denser than Europe's cities at world zoom): the
    /// middle of the field must read as the fill colour, within 0.12 (Euclidean RGB, 0...1), where
    /// 1.5 px white outlines drawn marker by marker made it a pale pink near white.
    @Test func denseFieldOfSmallDotsKeepsItsFillColour() throws {
        var csv = "id,lat,lon\n"
        for i in 0..<60 { for j in 0..<60 { csv += "\(i * 60 + j),\(Double(i) * 0.02),\(Double(j) * 0.02)\n" } }
        let url = try csvFile(csv)
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.clustering = nil
        r.defaultBasemap = false
        r.style.marker.shape = .circle
        r.style.marker.size = 4
        r.width = 200; r.height = 200
        r.view = .bbox(GeoBounds(west: -0.4, south: -0.4, east: 1.58, north: 1.58))
        let result = try MapRenderer.render(r)
        let img = try PNGCodec.decode(data: result.data)
        let (mr, mg, mb) = meanColour(img, x0: 70, y0: 70, x1: 130, y1: 130)
        let f = r.style.marker.fill
        let distance = ((mr - f.r) * (mr - f.r) + (mg - f.g) * (mg - f.g) + (mb - f.b) * (mb - f.b)).squareRoot()
        #expect(distance < 0.12, "mean colour \(mr), \(mg), \(mb) is \(distance) from the fill")
        // The outline still separates the field from the background: its edge is not the fill.
        #expect(result.scene.markers[0].symbols[0].strokeWidth < 1)
    }

    @Test func worldSpanningDataIsCentredOnZeroAndLetterboxed() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.width = 800; r.height = 480
        r.layout.scaleBar = true
        let result = try MapRenderer.render(r)
        #expect(abs(result.viewport.centerLongitude) < 1e-9)
        let w = try #require(result.scene.world)
        // One world, not repeated: the world is narrower than the image and centred in it.
        #expect(w.width <= 800 && abs(w.x + w.width / 2 - 400) < 1e-9)
        // Basemap shapes are clipped to the world; every bubble and marker lies inside it.
        for b in result.scene.bubbles {
            #expect(b.y - b.radius >= w.y - 1e-9 && b.y + b.radius <= w.y + w.height + 1e-9)
        }
        // The scale bar is left out, with one warning naming the latitudes.
        #expect(result.scene.markCounts["scale-bar"] == nil)
        #expect(result.warnings.filter { $0.hasPrefix("scale bar omitted") }.count == 1)
        let img = try PNGCodec.decode(data: result.data)
        // The letterbox band left of the world is grey, not sea.
        let p = img[2, 240]
        #expect(p.r == p.g && p.g == p.b && p.r < 240)
        try Snapshot.assertMatches(result.data, named: "world-letterboxed", format: .png, maxDifferentPixels: 40)
    }

    /// `--center LAT,LON` without `--zoom` overrides the 0° centring of world-spanning data: the
    /// view is centred exactly there, at a zoom that still shows all the data around it (lower
    /// than the default view's when the centre is off the data's middle latitude), and every
    /// bubble lies inside the one world drawn around that centre (none in the letterbox).
    @Test func centerAloneRecentresTheWorld() throws {
        var r = try RenderOptionTable.request(commandLine: [
            ("center", OptionValue(word: "10,150")), ("size", OptionValue(word: "800x480"))])
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        #expect(r.view == .fitAround(lat: 10, lon: 150))
        let result = try MapRenderer.render(r)
        #expect(abs(result.viewport.centerLongitude - 150) < 1e-9)
        #expect(abs(result.viewport.centerLatitude - 10) < 1e-9)
        r.view = .fit(zoom: nil)
        let plain = try MapRenderer.render(r)
        #expect(abs(plain.viewport.centerLongitude) < 1e-9)
        #expect(result.viewport.zoom <= plain.viewport.zoom + 1e-9)
        #expect(result.summary.pointsDrawn + result.summary.clusters.pointsInside == 34006)
        let w = try #require(result.scene.world)
        #expect(abs(w.x + w.width / 2 - 400) < 1e-9)
        #expect(result.scene.bubbles.count == plain.scene.bubbles.count)
        for b in result.scene.bubbles {
            #expect(b.x - b.radius >= w.x - 1e-9 && b.x + b.radius <= w.maxX + 1e-9, "bubble \(b.count) outside the world")
        }
        // London (0°) is drawn left of the centre by 150° worth of world, not off the map.
        let london = result.viewport.pixel(x: WebMercator.x(lon: -0.1), y: WebMercator.y(lat: 51.5))
        #expect(abs(london.x - (400 - 150.1 / 360 * w.width)) < 1e-6)
    }

    /// The letterbox colour is the style's `letterbox`: painted left of the world and beyond
    /// ±85.05°, nowhere else; a bad value names the key.
    @Test func letterboxColourComesFromTheStyle() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.width = 700; r.height = 1000
        r.style = try Style.parse(data: Data(##"{"letterbox": "#ff8800"}"##.utf8), name: "box.json")
        #expect(r.style.letterbox == RGBA.parse("#ff8800")!)
        let result = try MapRenderer.render(r)
        let w = try #require(result.scene.world)
        #expect(w.x > 2 && w.y > 2 && w.maxY < 998)   // letterboxed left, above and below
        let img = try PNGCodec.decode(data: result.data)
        for (x, y) in [(1, 500), (350, 1), (350, 998)] {
            let p = img[x, y]
            #expect(p.r == 255 && p.g == 136 && p.b == 0, "pixel \(x),\(y) is \(p)")
        }
        // Inside the world: sea or land, never the letterbox colour.
        let sea = img[350, Int(w.y) + 3]
        #expect(!(sea.r == 255 && sea.g == 136 && sea.b == 0))
        // The default stays the neutral grey, and the dark style has its own.
        #expect(Style.default.letterbox == RGBA(0.86, 0.86, 0.86))
        #expect(try Style.load(path: TestPaths.repoFile("styles/dark.json")).letterbox == RGBA.parse("#2e2e2e")!)
        #expect(throws: (any Error).self) { try Style.parse(data: Data(#"{"letterbox": "greyish"}"#.utf8), name: "box.json") }
    }

    /// Points at the poles: a circle at 90°S would be half beyond the world's edge; it is kept inside.
    @Test func marksAtThePolesStayInsideTheWorld() throws {
        let url = try csvFile("id,lat,lon\n1,-90,0\n2,90,10\n3,0,-170\n4,10,170\n")
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.clustering = nil
        r.style.marker.shape = .circle
        r.style.marker.size = 12
        r.width = 600; r.height = 600
        let result = try MapRenderer.render(r)
        let w = try #require(result.scene.world)
        let m = result.scene.markers[0]
        #expect(m.count == 4)
        for k in 0..<m.count {
            let b = m.box(at: k)
            #expect(b.y >= w.y - 1e-9 && b.maxY <= w.y + w.height + 1e-9, "marker \(k) leaves the world: \(b) \(w)")
        }
        try Snapshot.assertMatches(result.data, named: "poles", format: .png, maxDifferentPixels: 40)
    }

    @Test func scaleBarDrawnWhereTheScaleIsNearlyConstant() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.view = .bbox(GeoBounds(west: 2, south: 48, east: 3, north: 49))
        r.width = 400; r.height = 300
        r.layout.scaleBar = true
        let result = try MapRenderer.render(r)
        #expect(result.scene.markCounts["scale-bar"] == 1)
        #expect(!result.warnings.contains { $0.hasPrefix("scale bar") })
    }

    /// The embedded basemap is Natural Earth 110m countries: the same rings as the sample file,
    /// read by the GeoJSON reader, within the encoding's 1e-4 degree.
    @Test func defaultBasemapMatchesNaturalEarthFile() throws {
        let embedded = DefaultBasemap.shapes
        let file = try ShapeReader.read(path: TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson"))
        #expect(embedded.shapeCount == file.shapeCount)
        #expect(embedded.ringStart == file.ringStart)
        var worst = 0.0
        for i in file.coords.indices { worst = max(worst, abs(file.coords[i] - embedded.coords[i])) }
        #expect(worst <= 0.5e-4 + 1e-12)
    }

    @Test func landByDefaultAndNoneWhenTurnedOff() throws {
        let url = try csvFile("id,lat,lon\n1,48.85,2.35\n2,40.4,-3.7\n")
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.width = 300; r.height = 300
        let with = try MapRenderer.render(r)
        #expect((with.scene.markCounts["polygon"] ?? 0) > 5)
        r.defaultBasemap = false
        let without = try MapRenderer.render(r)
        #expect(without.scene.markCounts["polygon"] == nil)
    }

    /// Chukotka and Fiji are split at 180° in Natural Earth: no stroke along the cut. Checked on
    /// pixels: along the 180° meridian over Chukotka's land, no pixel has the outline colour.
    @Test func antimeridianCutHasNoOutline() throws {
        let url = try csvFile("id,lat,lon\n1,66,175\n2,65,-175\n")
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.clustering = nil
        r.view = .bbox(GeoBounds(west: 170, south: 62, east: -170, north: 70))
        r.width = 400; r.height = 300
        let result = try MapRenderer.render(r)
        var unstroked = 0
        for case .shapes(let b) in result.scene.items { unstroked += b.unstroked.count }
        #expect(unstroked > 0)
        let img = try PNGCodec.decode(data: result.data)
        let x = Int(result.viewport.pixel(x: 1, y: result.viewport.centerY).x)
        let land = r.style.basemap.fill
        var landRows = 0, outlineRows = 0
        for y in 0..<300 {
            // Pixels on the meridian: land colour where Chukotka is, the darker outline only where
            // the meridian crosses a coast (a few pixels; a stroke along the cut made it ~190).
            let p = img[x, y]
            if abs(Double(p.r) / 255 - land.r) < 0.02 && abs(Double(p.g) / 255 - land.g) < 0.02 { landRows += 1 }
            if p.r < 200 && p.g < 200 && p.b < 190 { outlineRows += 1 }
        }
        // (1:50m from zoom 3: the meridian crosses Chukotka's bays, 149 land rows; 1:110m gave more.)
        #expect(landRows > 130)
        #expect(outlineRows <= 4)
        try Snapshot.assertMatches(result.data, named: "chukotka-cut", format: .png, maxDifferentPixels: 40)
    }
}
