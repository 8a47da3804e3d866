import Foundation
import MapRenderCairo
import Testing
import TestSupport
@testable import MapRender

/// Maps on raster tiles, end to end. The tiles are maprender's own Natural Earth basemap cut into
/// a pyramid (scripts/make-tile-fixtures), so a map on tiles must look like the same map drawn
/// from the GeoJSON: that comparison, not only the goldens, is the check that tiles land right.
@Suite struct TileMapTests {
    static let fixtures = TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures")
    static let geojson = TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")

    func request(_ tiles: String, view: ViewSpec, width: Double = 640, height: Double = 400) -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/populated_places.geojson")]
        r.view = view
        r.width = width; r.height = height
        r.clustering = nil
        r.style.marker.shape = .circle
        r.style.marker.size = 6
        r.tiles.sources = [Self.fixtures + "/" + tiles]
        r.tiles.cacheDirectory = NSTemporaryDirectory() + "maprender-tile-map-tests"
        return r
    }

    /// The share of pixels that differ between the map on tiles and the map drawn from the GeoJSON.
    func differenceFromVector(_ r: RenderRequest) throws -> Double {
        var vector = r
        vector.tiles.sources = []
        vector.basemaps = [Self.geojson]
        vector.layout.attribution = TileStage.layout(r.layout, tiles: try TileStage.run(r, viewport: try MapRenderer.render(r).viewport))
            .attribution
        let a = try PNGCodec.decode(data: try MapRenderer.render(r).data)
        let b = try PNGCodec.decode(data: try MapRenderer.render(vector).data)
        let d = try ImageDiff.compare(a, b, options: .init(threshold: 0.1)).differentFraction
        print("tiles vs GeoJSON basemap: \(r.tiles.sources[0]) differs in \(d * 100)% of pixels")
        return d
    }

    /// The built-in land is a fallback for maps with no basemap of their own: it would cover tiles.
    @Test func builtInLandIsNotDrawnOverTiles() throws {
        let onTiles = try MapRenderer.render(request("ne.mbtiles", view: .center(lat: 30, lon: 10, zoom: 1.6))).scene
        #expect(onTiles.markCounts["polygon"] == nil)
        var plain = request("ne.mbtiles", view: .center(lat: 30, lon: 10, zoom: 1.6))
        plain.tiles.sources = []
        #expect((try MapRenderer.render(plain).scene.markCounts["polygon"] ?? 0) > 0)
    }

    /// Runs `tool` with `args`; its exit status.
    func run(_ tool: String, _ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        try p.run(); p.waitUntilExit()
        return p.terminationStatus
    }

    func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-tilemap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func distinctImages(_ scene: Scene) -> Int {
        Set(scene.items.compactMap { if case .raster(let m) = $0 { ObjectIdentifier(m.image) } else { nil } }).count
    }

    /// JPEG tiles: SVG and PDF carry each tile's JPEG bytes once (not the pixels re-encoded as
    /// PNG), and librsvg and poppler draw them like the PNG.
    @Test func jpegTilesAreEmbeddedAsJPEGInSVGAndPDF() throws {
        var r = request("ne-jpeg.mbtiles", view: .center(lat: 20, lon: 0, zoom: 0.6), width: 640, height: 360)
        let png = try PNGCodec.decode(data: try MapRenderer.render(r).data)
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }

        r.format = .svg
        let svgResult = try MapRenderer.render(r)
        let svg = String(decoding: svgResult.data, as: UTF8.self)
        let distinct = distinctImages(svgResult.scene)
        #expect(distinct >= 4)
        #expect(svg.components(separatedBy: "data:image/jpeg;base64,").count - 1 == distinct)
        #expect(!svg.contains("data:image/png"))
        // The first tile's bytes are the file's JPEG, byte for byte.
        let jpegOfFirst = try #require(svgResult.scene.items.lazy.compactMap { if case .raster(let m) = $0 { m.image.jpeg } else { nil } }.first)
        #expect(svg.contains(Data(jpegOfFirst).base64EncodedString()))
        #expect(try MapRenderer.render(r).data == svgResult.data)  // deterministic
        try svgResult.data.write(to: dir.appendingPathComponent("m.svg"))
        #expect(try run("rsvg-convert", ["-o", dir.appendingPathComponent("svg.png").path, dir.appendingPathComponent("m.svg").path]) == 0)
        let viaRsvg = try ImageDiff.compare(png, try PNGCodec.decode(path: dir.appendingPathComponent("svg.png").path)).differentFraction
        #expect(viaRsvg < 0.03, "rsvg-convert's picture of the JPEG-tile SVG differs in \(viaRsvg * 100)% of pixels")

        r.format = .pdf
        let pdf = try MapRenderer.render(r).data
        #expect(try MapRenderer.render(r).data == pdf)
        let pdfText = String(decoding: pdf, as: UTF8.self)
        #expect(pdfText.components(separatedBy: "/DCTDecode").count - 1 == distinct)
        try pdf.write(to: dir.appendingPathComponent("m.pdf"))
        #expect(try run("pdftoppm", ["-png", "-singlefile", "-scale-to-x", "640", "-scale-to-y", "360",
                                     dir.appendingPathComponent("m.pdf").path, dir.appendingPathComponent("pdf").path]) == 0)
        let viaPoppler = try ImageDiff.compare(png, try PNGCodec.decode(path: dir.appendingPathComponent("pdf.png").path)).differentFraction
        #expect(viaPoppler < 0.03, "pdftoppm's picture of the JPEG-tile PDF differs in \(viaPoppler * 100)% of pixels")
        print("JPEG tiles: SVG via librsvg differs in \(viaRsvg * 100)%, PDF via poppler in \(viaPoppler * 100)% of pixels")
    }

    /// A PDF on PNG tiles, rasterised by poppler, is the PNG map.
    @Test func pdfOnTilesMatchesThePNG() throws {
        var r = request("ne.pmtiles", view: .center(lat: 45, lon: 10, zoom: 2.4), width: 640, height: 400)
        r.layout.labelField = "name"
        let png = try PNGCodec.decode(data: try MapRenderer.render(r).data)
        r.format = .pdf
        let result = try MapRenderer.render(r)
        #expect(try MapRenderer.render(r).data == result.data)
        let pdfText = String(decoding: result.data, as: UTF8.self)
        // Each distinct tile is one image in the PDF.
        #expect(pdfText.components(separatedBy: "/Subtype /Image").count - 1 == distinctImages(result.scene))
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try result.data.write(to: dir.appendingPathComponent("m.pdf"))
        #expect(try run("pdftoppm", ["-png", "-singlefile", "-scale-to-x", "640", "-scale-to-y", "400",
                                     dir.appendingPathComponent("m.pdf").path, dir.appendingPathComponent("pdf").path]) == 0)
        let d = try ImageDiff.compare(png, try PNGCodec.decode(path: dir.appendingPathComponent("pdf.png").path)).differentFraction
        print("PDF on tiles via poppler differs from the PNG in \(d * 100)% of pixels")
        // The difference is poppler's glyph edges against Cairo's, about 0.05% of the pixels a
        // label: 57 labels gave 2.9%, 61 (since names may move others to place themselves) 3.3%.
        let labels = result.scene.labels.count
        #expect(d < 0.01 + 0.0004 * Double(labels), "pdftoppm's picture differs in \(d * 100)% of pixels (\(labels) labels)")
    }

    /// City scale: the GeoNames places of central Paris on zooms 10-14 tiles whose graticule
    /// (every 0.01°) was drawn into them. Independent of the golden: each grid line is found in
    /// the picture where the projection puts its longitude or latitude.
    @Test func cityScaleMapOnPMTiles() throws {
        var r = request("city.pmtiles", view: .bbox(GeoBounds(west: 2.26, south: 48.82, east: 2.44, north: 48.90)),
                        width: 720, height: 480)
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.style.marker.shape = .pin
        r.style.marker.size = 22
        r.layout.labelField = "name"
        r.layout.attribution = "Places: GeoNames (CC BY 4.0)"
        let result = try MapRenderer.render(r)
        let tiles = try #require(result.summary.tiles)
        #expect(tiles.requested > 0 && tiles.missing == 0 && tiles.failed == 0)
        let zooms = Set(result.scene.items.compactMap { if case .raster(let m) = $0 { m.image.name.components(separatedBy: " tile ").last?.split(separator: "/").first } else { nil } })
        #expect(zooms == ["13"], "tile zooms \(zooms)")
        #expect(result.scene.labels.count > 30)
        try Snapshot.assertMatches(result.data, named: "paris-city-pmtiles", format: .png, maxDifferentPixels: 80)

        // Grid lines where the projection says: for each meridian and parallel in view, the
        // bluest column (row) within ±6 px, by median over the picture, is within 1 px of it.
        let img = try PNGCodec.decode(data: result.data)
        let v = result.viewport
        func blueness(_ x: Int, _ y: Int) -> Int {
            let i = (y * img.width + x) * 4
            return Int(img.pixels[i + 2]) - Int(img.pixels[i])
        }
        func median(_ a: [Int]) -> Int { a.sorted()[a.count / 2] }
        var checked = 0
        for k in 223...247 {
            let lon = Double(k) / 100
            let px = v.pixel(x: WebMercator.x(lon: lon), y: v.centerY).x
            guard px > 8, px < Double(img.width) - 8 else { continue }
            let cols = (Int(px) - 6)...(Int(px) + 6)
            let best = cols.max { a, b in median((0..<img.height).map { blueness(a, $0) }) < median((0..<img.height).map { blueness(b, $0) }) }!
            #expect(abs(Double(best) + 0.5 - px) <= 1.0, "meridian \(lon)° at x \(px), bluest column \(best)")
            checked += 1
        }
        for k in 4881...4891 {
            let lat = Double(k) / 100
            let py = v.pixel(x: v.centerX, y: WebMercator.y(lat: lat)).y
            guard py > 8, py < Double(img.height) - 8 else { continue }
            let rows = (Int(py) - 6)...(Int(py) + 6)
            let best = rows.max { a, b in median((0..<img.width).map { blueness($0, a) }) < median((0..<img.width).map { blueness($0, b) }) }!
            #expect(abs(Double(best) + 0.5 - py) <= 1.0, "parallel \(lat)° at y \(py), bluest row \(best)")
            checked += 1
        }
        #expect(checked >= 15)
    }

    /// An animation on tiles: its frames at rest are the still maps of their keyframes, tiles,
    /// attribution and all, and every frame has the tiles under it.
    @Test func animationFramesAtRestAreTheStillMapsOnTiles() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        func geojson(_ places: [(String, Double, Double)]) -> String {
            let f = places.map { #"{"type":"Feature","id":"\#($0.0)","geometry":{"type":"Point","coordinates":[\#($0.2),\#($0.1)]},"properties":{"name":"\#($0.0)"}}"# }
            return #"{"type":"FeatureCollection","features":["# + f.joined(separator: ",") + "]}"
        }
        let a = dir.appendingPathComponent("a.geojson").path, b = dir.appendingPathComponent("b.geojson").path
        try geojson([("Paris", 48.86, 2.35), ("Madrid", 40.42, -3.70), ("Rome", 41.90, 12.50)]).write(toFile: a, atomically: true, encoding: .utf8)
        try geojson([("Paris", 52.52, 13.40), ("Madrid", 38.72, -9.14), ("Oslo", 59.91, 10.75)]).write(toFile: b, atomically: true, encoding: .utf8)
        var base = request("ne.pmtiles", view: .center(lat: 48, lon: 5, zoom: 2.6), width: 480, height: 320)
        base.layout.labelField = "name"
        var r = AnimationRequest(source: .keyframes([a, b]), output: .inMemory(format: .png))
        r.base = base
        r.framesPerTransition = 4
        r.jobs = 2
        var frames: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, d in frames[k] = d })
        #expect(frames.count == 5)
        for (k, path) in [(0, a), (4, b)] {
            var still = base
            still.inputs = [path]
            let expected = try MapRenderer.render(still)
            #expect(expected.scene.markCounts["tile"] ?? 0 > 0)
            #expect(frames[k] == expected.data, "frame \(k) at rest differs from the still map on tiles")
        }
        // A frame between them has the same tiles: where no point is, it is the map without points.
        var empty = base
        empty.inputs = [a]
        empty.style.marker.opacity = 0
        empty.layout.labelField = nil
        let background = try PNGCodec.decode(data: try MapRenderer.render(empty).data)
        let middle = try PNGCodec.decode(data: try #require(frames[2]))
        let d = try ImageDiff.compare(background, middle).differentFraction
        #expect(d < 0.05, "a moving frame differs from the tiles alone in \(d * 100)% of pixels")
    }

    @Test func worldOnMBTilesLooksLikeTheVectorBasemap() throws {
        let r = request("ne.mbtiles", view: .center(lat: 30, lon: 10, zoom: 1.6))
        let result = try MapRenderer.render(r)
        let tiles = try #require(result.summary.tiles)
        // Read from the file, or from this process's memory when another test drew the same view first.
        #expect(tiles.requested > 0 && tiles.fetched + tiles.fromCache == tiles.requested && tiles.missing == 0)
        #expect(result.scene.markCounts["tile"] == result.scene.items.prefix { if case .raster = $0 { true } else { false } }.count)
        #expect(result.scene.labels.isEmpty)
        try Snapshot.assertMatches(result.data, named: "world-mbtiles", format: .png, maxDifferentPixels: 50)
        let d = try differenceFromVector(r)
        #expect(d < 0.04, "tiles differ from the GeoJSON basemap in \(d * 100)% of pixels")
        // The check can fail: tiles one column off differ far more.
        var shifted = r
        shifted.view = .center(lat: 30, lon: 10 + 360.0 / 8, zoom: 1.6)
        var vector = r
        vector.tiles.sources = []; vector.basemaps = [Self.geojson]
        let off = try ImageDiff.compare(try PNGCodec.decode(data: try MapRenderer.render(shifted).data),
                                        try PNGCodec.decode(data: try MapRenderer.render(vector).data)).differentFraction
        #expect(off > 3 * d)
    }

    @Test func acrossTheAntimeridianFromPMTiles() throws {
        let r = request("ne-leaves.pmtiles", view: .center(lat: -20, lon: 179, zoom: 2.3))
        let result = try MapRenderer.render(r)
        #expect(result.summary.tiles?.failed == 0 && result.summary.tiles?.missing == 0)
        try Snapshot.assertMatches(result.data, named: "antimeridian-pmtiles", format: .png, maxDifferentPixels: 50)
        let d = try differenceFromVector(r)
        #expect(d < 0.04, "tiles differ from the GeoJSON basemap in \(d * 100)% of pixels")
    }

    @Test func scaleTwoUsesTheNextZoom() throws {
        var r = request("folder", view: .center(lat: 45, lon: -30, zoom: 0.8), width: 320, height: 200)
        r.scale = 2
        let result = try MapRenderer.render(r)
        let z = result.scene.items.compactMap { if case .raster(let m) = $0 { m.image.name } else { nil } }
        // 256-px tiles: ⌈0.8⌉ + 1 = 2 at scale 1, one zoom more at scale 2 (the folder has no @2x tiles).
        #expect(!z.isEmpty && z.allSatisfy { $0.contains(" tile 3/") })
        r.scale = 1
        let one = try MapRenderer.render(r)
        #expect(one.scene.items.contains { if case .raster(let m) = $0 { m.image.name.contains(" tile 2/") } else { false } })
        try Snapshot.assertMatches(result.data, named: "scale2-folder", format: .png, maxDifferentPixels: 50)
    }

    @Test func svgEmbedsEachTileOnceAndMatchesThePNG() throws {
        var r = request("ne.pmtiles", view: .center(lat: 0, lon: 0, zoom: 0.2), width: 900, height: 420)
        r.format = .svg
        let result = try MapRenderer.render(r)
        let svg = String(decoding: result.data, as: UTF8.self)
        let distinct = Set(result.scene.items.compactMap { if case .raster(let m) = $0 { ObjectIdentifier(m.image) } else { nil } })
        let placed = result.scene.markCounts["tile"] ?? 0
        #expect(placed > distinct.count)  // world copies: some tiles drawn twice
        #expect(svg.components(separatedBy: "data:image/png;base64").count - 1 == distinct.count)
        // Deterministic bytes.
        #expect(try MapRenderer.render(r).data == result.data)
        try Snapshot.assertMatches(result.data, named: "world-copies-pmtiles", format: .svg)
        // librsvg draws the SVG like Cairo draws the PNG.
        r.format = .png
        let png = try MapRenderer.render(r).data
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try result.data.write(to: dir.appendingPathComponent("m.svg"))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["rsvg-convert", "-o", dir.appendingPathComponent("m.png").path, dir.appendingPathComponent("m.svg").path]
        try p.run(); p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let viaRsvg = try PNGCodec.decode(path: dir.appendingPathComponent("m.png").path)
        let diff = try ImageDiff.compare(try PNGCodec.decode(data: png), viaRsvg).differentFraction
        #expect(diff < 0.03, "rsvg-convert's picture differs in \(diff * 100)% of pixels")
    }

    @Test func strictMakesMissingTilesAnError() throws {
        // Zoom 6 is past the fixtures' maximum (3): overzoomed, nothing missing. A bounds check
        // instead: the MBTiles bounds end at 85.05°, so nothing is missing at the poles either;
        // a folder with a hole is the honest case.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-hole-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/folder", toPath: dir.path)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.removeItem(atPath: dir.path + "/3/4/2.png")
        var r = request("folder", view: .center(lat: 45, lon: 10, zoom: 2))
        r.tiles.sources = [dir.path]
        let result = try MapRenderer.render(r)
        #expect(result.summary.tiles?.missing == 1)
        #expect(result.warnings.contains { $0.hasPrefix("tiles: 1 missing, 0 failed of ") })
        r.tiles.strict = true
        #expect { try MapRenderer.render(r) } throws: { e in
            (e as? MapRenderError)?.kind == .unavailable && (e as! MapRenderError).exitCode == 69
        }
    }
}
