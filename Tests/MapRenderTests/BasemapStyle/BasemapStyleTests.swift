import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

@Suite(.serialized) struct BasemapStyleTests {
    static let pmtiles = TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/ne-omt.pmtiles")
    static let xyz = TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/xyz")

    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-basemap-style-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// A copy of a style with every vector source pointed at `url` (a `pmtiles://` path, or a template).
    func styleCopy(_ path: String, source url: String? = nil, tiles: String? = nil) throws -> String {
        var s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        var sources = s["sources"] as! [String: Any]
        for (k, v) in sources {
            var o = v as! [String: Any]
            guard o["type"] as? String == "vector" else { continue }
            o.removeValue(forKey: "url"); o.removeValue(forKey: "tiles")
            if let url { o["url"] = url }
            if let tiles { o["tiles"] = [tiles]; o["maxzoom"] = 2 }
            sources[k] = o
        }
        s["sources"] = sources
        let out = dir.appendingPathComponent(UUID().uuidString + ".json")
        try JSONSerialization.data(withJSONObject: s).write(to: out)
        return out.path
    }

    /// OpenMapTiles' Positron, unchanged but for its source (pointed at the Natural Earth fixture
    /// in the same schema), loads and draws without error; what it uses that maprender does not
    /// draw is this list, now empty (the README says so).
    @Test func positronLoadsAndDraws() throws {
        let style = try styleCopy(TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/Fixtures/positron/style.json"),
                                  source: "pmtiles://" + Self.pmtiles)
        var r = try BasemapStyleOracleTests.request(style: style, lat: 50, lon: 10, zoom: 4, symbols: true)
        r.basemapStyle = try MapLibreStyle.load(path: style)
        // Its sprite is on a server: offline, on an empty cache, it cannot be had (a warning).
        r.tiles.offline = true
        r.tiles.cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("positron-\(UUID())").path
        let out = try MapRenderer.render(r)
        let s = try #require(out.summary.basemapStyle)
        #expect(s.tiles.requested == 9 && s.tiles.failed == 0 && s.tileZoom == 4)
        #expect(s.features > 100)
        // Everything it uses is drawn (text-anchor by zoom, text-justify, text-translate, level
        // line labels, icons from its sprite when it can be had).
        #expect(s.unsupported == [])
        #expect(out.warnings.contains { $0.contains("sprite: https://openmaptiles.github.io/positron-gl-style/sprite.json: not in the tile cache (--offline)") },
                "\(out.warnings)")
        let png = try PNGCodec.decode(data: out.data)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(png.pixels[(4 * (y * png.width + x))..<(4 * (y * png.width + x) + 3)]) }
        // Its water, rgb(194, 200, 202), over the Bay of Biscay; its background, rgb(242,243,240), in Germany.
        #expect(pixel(100, 500) == [194, 200, 202], "\(pixel(100, 500))")
        #expect(pixel(520, 300) == [242, 243, 240], "\(pixel(520, 300))")
    }

    /// SVG and PDF keep the basemap as vector paths (no embedded image), and rasterised by
    /// librsvg and poppler they match the PNG, as the other formats do (CrossFormatTests).
    @Test func svgAndPdfAreVectorAndMatchPng() throws {
        var r = try BasemapStyleOracleTests.request(style: TestPaths.repoFile("styles/basemap-light.json"), lat: 50, lon: 10, zoom: 4)
        r.width = 512; r.height = 384
        r.format = .png
        let png = try PNGCodec.decode(data: MapRenderer.render(r).data)
        r.format = .svg
        let svgData = try MapRenderer.render(r).data
        let svgText = String(decoding: svgData, as: UTF8.self)
        #expect(!svgText.contains("<image"))
        #expect(svgText.components(separatedBy: "<path").count > 5)
        let svg = dir.appendingPathComponent("map.svg")
        try svgData.write(to: svg)
        r.format = .pdf
        let pdfData = try MapRenderer.render(r).data
        #expect(!String(decoding: pdfData, as: UTF8.self).contains("/Subtype /Image"))
        let pdf = dir.appendingPathComponent("map.pdf")
        try pdfData.write(to: pdf)
        let w = String(png.width), h = String(png.height)
        let fromSVG = dir.appendingPathComponent("svg.png")
        try CrossFormatTests.runTool("rsvg-convert", package: "librsvg2-bin", ["--width", w, "--height", h, "--output", fromSVG.path, svg.path])
        try CrossFormatTests.runTool("pdftoppm", package: "poppler-utils",
                                     ["-png", "-singlefile", "-scale-to-x", w, "-scale-to-y", h, pdf.path, dir.appendingPathComponent("pdf").path])
        for (label, path, limit) in [("SVG via librsvg", fromSVG.path, 0.025), ("PDF via poppler", dir.appendingPathComponent("pdf.png").path, 0.03)] {
            let d = try ImageDiff.compare(png, try PNGCodec.decode(path: path))
            print("basemap style, \(label): \(String(format: "%.3f", 100 * d.differentFraction))% of pixels differ from the PNG")
            #expect(d.differentFraction <= limit, "\(label)")
        }
    }

    /// A damaged tile is a warning naming the source and the tile's z/x/y; the map is drawn
    /// with the other tiles. Missing tiles (past the folder's zooms) are no error.
    @Test func malformedTileIsAWarning() throws {
        let folder = dir.appendingPathComponent("tiles")
        try FileManager.default.copyItem(atPath: Self.xyz, toPath: folder.path)
        try Data([0x1a, 0xff, 0x01, 0x02]).write(to: folder.appendingPathComponent("2/2/1.pbf"))
        let style = try styleCopy(TestPaths.repoFile("styles/basemap-light.json"), tiles: folder.path + "/{z}/{x}/{y}.pbf")
        let r = try BasemapStyleOracleTests.request(style: style, lat: 50, lon: 10, zoom: 2.5)
        let out = try MapRenderer.render(r)
        #expect(out.warnings.contains { $0.contains(#"source "ne": tile 2/2/1 is malformed (truncated"#) }, "\(out.warnings)")
        #expect(out.summary.basemapStyle?.tileZoom == 2)
    }

    /// A vector source's `url` naming a TileJSON document: a relative path, a file:// URL, and
    /// an http URL (a loopback server over the same folder), each with a relative tile template,
    /// zooms 0-2 and bounds over western Europe. Tiles wholly outside the bounds are not asked
    /// for; the map is the same bytes by all three, and where the bounds reach, the same pixels
    /// as the folder given as a `tiles` template (the other way to the same tiles).
    @Test func tileJSONSources() throws {
        let site = dir.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.xyz, toPath: site.appendingPathComponent("xyz").path)
        try #"{"tilejson": "3.0.0", "tiles": ["xyz/{z}/{x}/{y}.pbf"], "minzoom": 0, "maxzoom": 2, "bounds": [-10, 35, 20, 60], "attribution": "NE via TileJSON"}"#
            .write(to: site.appendingPathComponent("tiles.json"), atomically: true, encoding: .utf8)
        let light = TestPaths.repoFile("styles/basemap-light.json")
        // A style beside the document, naming it relatively.
        var styleJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: light))) as! [String: Any]
        styleJSON["sources"] = ["ne": ["type": "vector", "url": "tiles.json"]]
        let relative = site.appendingPathComponent("style.json")
        try JSONSerialization.data(withJSONObject: styleJSON).write(to: relative)
        let fileURL = try styleCopy(light, source: "file://" + site.appendingPathComponent("tiles.json").path)
        let template = try styleCopy(light, tiles: site.path + "/xyz/{z}/{x}/{y}.pbf")

        func render(_ style: String, _ change: (inout RenderRequest) -> Void = { _ in }) throws -> RenderResult {
            var r = try BasemapStyleOracleTests.request(style: style, lat: 48, lon: 10, zoom: 2.5)
            r.tiles.cacheDirectory = dir.appendingPathComponent("cache").path
            change(&r)
            return try MapRenderer.render(r)
        }
        let a = try render(relative.path), b = try render(fileURL), whole = try render(template)
        let sa = try #require(a.summary.basemapStyle), sw = try #require(whole.summary.basemapStyle)
        #expect(sa.tileZoom == 2 && sw.tileZoom == 2)
        // The view covers x 1-2, y 0-1 at zoom 2 (4 tiles); the bounds reach into x 1-2, y 1 only.
        print("TileJSON: \(sa.tiles.requested) tiles asked for in the bounds, \(sw.tiles.requested) without them")
        #expect(sw.tiles.requested == 4 && sa.tiles.requested == 2, "\(sa.tiles) \(sw.tiles)")
        #expect(a.data == b.data)
        #expect(a.scene.items.contains { if case .textBox(let t) = $0 { t.text.contains("NE via TileJSON") } else { false } })
        // Inside the bounds' tiles (x 1-2, y 1: 90° W to 90° E, 0° to 66.5° N, on the image but
        // its attribution's corner), the same pixels.
        let pa = try PNGCodec.decode(data: a.data), pw = try PNGCodec.decode(data: whole.data)
        let t = a.viewport
        let top = max(0, Int(t.pixel(x: 0.5, y: 0.25).y) + 1), bottom = min(pa.height, Int(t.pixel(x: 0.5, y: 0.5).y) - 1)
        let left = max(0, Int(t.pixel(x: 0.25, y: 0.25).x) + 1), right = min(pa.width - 200, Int(t.pixel(x: 0.75, y: 0.25).x) - 1)
        var same = 0, total = 0
        for y in top..<bottom { for x in left..<right {
            let i = 4 * (y * pa.width + x)
            total += 1
            if pa.pixels[i..<(i + 4)] == pw.pixels[i..<(i + 4)] { same += 1 }
        } }
        #expect(total > 10_000 && same == total, "\(same) of \(total) pixels the same inside the bounds")
        // Outside them (the Arctic, tiles y 0): no land drawn, the style's background only.
        let north = Int(t.pixel(x: 0.5, y: 0.2).y)
        if north > 0 {
            let i = 4 * (north * pa.width + pa.width / 2)
            #expect(Array(pa.pixels[i..<(i + 3)]) == [0xf4, 0xf1, 0xea], "\(Array(pa.pixels[i..<(i + 3)]))")
        }

        // Over HTTP: python3's http.server on a free loopback port serves the folder.
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let port = 20000 + Int.random(in: 0..<30000)
        server.arguments = ["python3", "-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", site.path]
        server.standardError = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        var up = false
        for _ in 0..<100 where !up {
            if let fd = try? LoopbackHTTP.connect(port: port, timeout: 1) { close(fd); up = true } else { Thread.sleep(forTimeInterval: 0.05) }
        }
        try #require(up, "python3 -m http.server did not start on port \(port)")
        let http = try styleCopy(light, source: "http://127.0.0.1:\(port)/tiles.json")
        let c = try render(http)
        #expect(c.data == a.data)
        #expect(c.summary.basemapStyle?.tiles.fetched == 2)
        // Offline, from the cache the first map filled: the same map again.
        let d = try render(http) { $0.tiles.offline = true }
        #expect(d.data == a.data)
    }

    /// A TileJSON that cannot be used is an error naming the source and the document.
    @Test func badTileJSONIsAnError() throws {
        let doc = dir.appendingPathComponent("bad.json")
        try #"{"tilejson": "3.0.0", "tiles": [], "maxzoom": 2}"#.write(to: doc, atomically: true, encoding: .utf8)
        let style = try styleCopy(TestPaths.repoFile("styles/basemap-light.json"), source: doc.path)
        #expect {
            try MapRenderer.render(try BasemapStyleOracleTests.request(style: style, lat: 48, lon: 10, zoom: 2))
        } throws: { e in
            "\(e)".contains(#"source "ne": TileJSON \#(doc.path): "tiles" must be an array of tile URL templates"#)
        }
        let missing = try styleCopy(TestPaths.repoFile("styles/basemap-light.json"), source: dir.appendingPathComponent("none.json").path)
        #expect(throws: MapRenderError.self) {
            try MapRenderer.render(try BasemapStyleOracleTests.request(style: missing, lat: 48, lon: 10, zoom: 2))
        }
    }

    /// The same map, rendered twice and from the MBTiles and PMTiles copies, is the same bytes.
    @Test func deterministicAcrossRunsAndContainers() throws {
        let light = TestPaths.repoFile("styles/basemap-light.json")
        let a = try MapRenderer.render(try BasemapStyleOracleTests.request(style: light, lat: 46.5, lon: 9, zoom: 6, symbols: true)).data
        let b = try MapRenderer.render(try BasemapStyleOracleTests.request(style: light, lat: 46.5, lon: 9, zoom: 6, symbols: true)).data
        #expect(a == b)
        let mb = try styleCopy(light, source: "mbtiles://" + TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/ne-omt.mbtiles"))
        let c = try MapRenderer.render(try BasemapStyleOracleTests.request(style: mb, lat: 46.5, lon: 9, zoom: 6)).data
        let d = try MapRenderer.render(try BasemapStyleOracleTests.request(style: light, lat: 46.5, lon: 9, zoom: 6)).data
        #expect(c == d)
    }

    /// GeoJSON sources (inline, and a file beside the style) and a raster source (PMTiles of
    /// PNG tiles) draw in the style's order.
    @Test func geojsonAndRasterSources() throws {
        let countries = TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")
        try FileManager.default.copyItem(atPath: countries, toPath: dir.appendingPathComponent("countries.geojson").path)
        let style = dir.appendingPathComponent("mixed.json")
        try """
            {"version": 8, "sources": {
               "r": {"type": "raster", "url": "pmtiles://\(TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/ne.pmtiles"))", "tileSize": 256},
               "c": {"type": "geojson", "data": "countries.geojson"},
               "box": {"type": "geojson", "data": {"type": "Feature", "properties": {"k": 1},
                        "geometry": {"type": "Polygon", "coordinates": [[[0, 40], [20, 40], [20, 55], [0, 55], [0, 40]]]}}}},
             "layers": [
               {"id": "bg", "type": "background", "paint": {"background-color": "#000000"}},
               {"id": "tiles", "type": "raster", "source": "r"},
               {"id": "fr", "type": "fill", "source": "c", "filter": ["==", "ADMIN", "France"], "paint": {"fill-color": "#00ff00"}},
               {"id": "box", "type": "line", "source": "box", "paint": {"line-color": "#ff0000", "line-width": 4}}]}
            """.write(to: style, atomically: true, encoding: .utf8)
        var r = try BasemapStyleOracleTests.request(style: style.path, lat: 47, lon: 10, zoom: 4)
        r.layout.attribution = ""
        let out = try MapRenderer.render(r)
        let png = try PNGCodec.decode(data: out.data)
        func pixel(lat: Double, lon: Double) -> [UInt8] {
            let p = out.viewport.pixel(x: WebMercator.x(lon: lon), y: WebMercator.y(lat: lat))
            let i = 4 * (Int(p.y) * png.width + Int(p.x))
            return Array(png.pixels[i..<(i + 3)])
        }
        #expect(pixel(lat: 47, lon: 2.5) == [0, 255, 0])               // France, from the file
        #expect(pixel(lat: 47.5, lon: 0) == [255, 0, 0])               // the inline box's west edge
        let sea = pixel(lat: 45, lon: -5)                               // Biscay: the raster tiles' sea, not the black background
        #expect(sea != [0, 0, 0], "\(sea)")
        #expect(out.scene.items.contains { if case .raster = $0 { true } else { false } })
    }
}
