import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// Sprite features of a basemap style against MapLibre Native (pymgl): signed-distance-field
/// icons painted with `icon-color` and a halo, `icon-text-fit`, an array of sprites (`id:name`),
/// a sprite fetched over HTTP from a loopback server (disk cache, `--offline`), and TileJSON's
/// `"scheme": "tms"`; each as a share of differing pixels, with a control that shows the figure
/// can fail.
@Suite(.serialized) struct SpriteFeatureOracleTests {
    static let server = TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/style_server.py")
    static let spriteDir = TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/Fixtures/sprite")

    /// The loopback server (style_server.py) over the fixture's MBTiles and the test sprite's folder.
    final class Server {
        let process = Process()
        let port: Int
        let cache: String
        init() throws {
            guard let p = try PythonServer.start(process, arguments: [SpriteFeatureOracleTests.server, BasemapStyleOracleTests.mbtiles,
                                                                       SpriteFeatureOracleTests.spriteDir]) else {
                throw CocoaError(.fileReadUnknown)
            }
            port = p
            cache = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-stylecache-\(UUID().uuidString)").path
        }
        deinit {
            kill(process.processIdentifier, SIGKILL)   // the test runner's threads block SIGTERM
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: cache)
        }
        var base: String { "http://127.0.0.1:\(port)" }
    }

    /// The cities of `GeoJSONSymbolOracleTests` with `layers`; `sprite`: the style's sprite value.
    static func style(_ dir: URL, _ name: String, _ layers: [[String: Any]], sprite: Any? = nil) throws -> String {
        try GeoJSONSymbolOracleTests.style(dir, name, layers, sprite: sprite)
    }

    static let sdfLayer: [String: Any] = [
        "id": "sdf", "type": "symbol", "source": "cities",
        "layout": ["icon-image": "sdf-disc", "icon-size": ["match", ["get", "rank"], 1, 1.5, 1], "icon-allow-overlap": true],
        "paint": ["icon-color": ["match", ["get", "rank"], 1, "#d03020", 2, "#2050c0", "#30a040"],
                  "icon-halo-color": "#ffffff", "icon-halo-width": 2, "icon-halo-blur": 1],
    ]

    /// An SDF icon in three colours by feature, at two sizes, with a blurred white halo: within
    /// 1% of MapLibre's pixels; the same icons unpainted (black, no halo) differ far more.
    @Test func sdfIconColorAndHalo() throws {
        let dir = MapLibreLabels.directory()
        let style = try Self.style(dir, "sdf", [Self.sdfLayer])
        var plain = Self.sdfLayer
        plain["paint"] = [String: Any]()
        let control = try Self.style(dir, "sdf-plain", [plain])
        let (d, out) = try GeoJSONSymbolOracleTests.difference(dir, style, "sdf")
        let (c, _) = try GeoJSONSymbolOracleTests.difference(dir, style, "sdf-control", oursStyle: control)
        print("SDF icons: \(String(format: "%.3f", 100 * d))% of pixels differ; unpainted \(String(format: "%.3f", 100 * c))%")
        #expect(d <= 0.01)
        #expect(d < c / 3)
        #expect(out.summary.basemapStyle?.unsupported == [])
        // Painted at the size drawn: 24 px a side at icon-size 1, 36 at 1.5.
        let icons = out.scene.items.compactMap { if case .raster(let r) = $0 { r } else { nil } }
        #expect(Set(icons.map(\.image.width)) == [24, 36], "\(Set(icons.map(\.image.width)))")
    }

    /// `icon-text-fit` both/width/height with padding: the framed box stretched over each name
    /// (text transparent, so boxes are compared pixel by pixel): within 1.5% of MapLibre's pixels
    /// for each; without the fit, about three times as many (the boxes land on the same pixels;
    /// what differs is the stretched 1-px frame, smoothed here, kept sharp by MapLibre).
    @Test func iconTextFit() throws {
        let dir = MapLibreLabels.directory()
        func layer(_ fit: String) -> [String: Any] {
            ["id": "fit", "type": "symbol", "source": "cities",
             "layout": ["icon-image": "box", "icon-text-fit": fit, "icon-text-fit-padding": [2, 6, 2, 6],
                        "text-field": "{name}", "text-font": ["DejaVu Sans Book"], "text-size": 16,
                        "icon-allow-overlap": true],
             "paint": ["text-opacity": 0]]
        }
        var figures: [String: Double] = [:]
        for fit in ["both", "width", "height"] {
            let style = try Self.style(dir, "fit-\(fit)", [layer(fit)])
            let (d, out) = try GeoJSONSymbolOracleTests.difference(dir, style, "fit-\(fit)")
            figures[fit] = d
            #expect(d <= 0.015, "\(fit)")
            #expect(out.summary.basemapStyle?.unsupported == [], "\(fit)")
        }
        let none = try Self.style(dir, "fit-none", [layer("none")])
        let (c, _) = try GeoJSONSymbolOracleTests.difference(dir, try Self.style(dir, "fit-both", [layer("both")]), "fit-control", oursStyle: none)
        print("icon-text-fit: " + figures.keys.sorted().map { "\($0) \(String(format: "%.3f", 100 * figures[$0]!))%" }.joined(separator: ", ")
              + "; not fitted \(String(format: "%.3f", 100 * c))%")
        #expect(figures["both"]! < c / 2)
    }

    /// An array of sprites, one a local file and one on a (loopback) server, each image called
    /// `id:name`: the icons as MapLibre draws them from the same sheets (given to it as files);
    /// the second map takes the remote sheets from the disk cache with `--offline`.
    @Test func spriteArrayWithARemoteSprite() throws {
        let server = try Server()
        let dir = MapLibreLabels.directory()
        let layer: [String: Any] = ["id": "icons", "type": "symbol", "source": "cities",
                                    "layout": ["icon-image": ["case", ["==", ["get", "rank"], 1], "local:dot", "web:square"],
                                               "icon-allow-overlap": true, "icon-size": 1.5]]
        let file = "file://" + BasemapSymbolOracleTests.sprite
        let ours = try Self.style(dir, "array", [layer], sprite: [["id": "local", "url": file], ["id": "web", "url": server.base + "/static/sprite"]])
        let theirs = try Self.style(dir, "array-maplibre", [layer], sprite: [["id": "local", "url": file], ["id": "web", "url": file]])
        func render(offline: Bool) throws -> RenderResult {
            var r = try BasemapStyleOracleTests.request(style: ours, lat: 48, lon: 10, zoom: 4, symbols: true)
            r.tiles.cacheDirectory = server.cache
            r.tiles.offline = offline
            r.layout.attribution = ""
            return try MapRenderer.render(r)
        }
        BasemapStyleStage.forgetSprites()
        let online = try render(offline: false)
        try online.data.write(to: dir.appendingPathComponent("array.png"))
        let (d, _) = try GeoJSONSymbolOracleTests.difference(dir, theirs, "array-maplibre-own")   // MapLibre's own, for the picture
        let img = try PNGCodec.decode(data: online.data)
        let mgl = try PNGCodec.decode(path: dir.appendingPathComponent("array-maplibre-own-maplibre.png").path)
        let diff = try ImageDiff.compare(img, mgl, options: .init(threshold: 0.1))
        print("sprite array (one remote): \(String(format: "%.3f", 100 * diff.differentFraction))% of pixels differ from MapLibre's (its own figure \(String(format: "%.3f", 100 * d))%)")
        #expect(diff.differentFraction <= 0.01)
        let icons = online.scene.items.compactMap { if case .raster(let r) = $0 { r } else { nil } }
        #expect(icons.count == GeoJSONSymbolOracleTests.cities.count)
        #expect(online.warnings.allSatisfy { !$0.contains("sprite") }, "\(online.warnings)")
        // Offline, a new process's first map: from the disk cache, byte for byte the same.
        BasemapStyleStage.forgetSprites()
        let offline = try render(offline: true)
        #expect(offline.data == online.data)
    }

    /// A remote sprite that is not there (404), and one not cached with `--offline`: a warning
    /// naming the style and the sprite, the map drawn without its icons, no error.
    @Test func missingRemoteSpriteIsAWarning() throws {
        let server = try Server()
        let dir = MapLibreLabels.directory()
        let layer: [String: Any] = ["id": "icons", "type": "symbol", "source": "cities", "layout": ["icon-image": "web:dot"]]
        for (name, url, offline, says) in [("404", server.base + "/static/nothing", false, "404"),
                                           ("offline", server.base + "/static/sprite", true, "offline")] {
            let style = try Self.style(dir, "missing-\(name)", [layer], sprite: [["id": "web", "url": url]])
            var r = try BasemapStyleOracleTests.request(style: style, lat: 48, lon: 10, zoom: 4, symbols: true)
            r.tiles.cacheDirectory = server.cache + "-\(name)"
            r.tiles.offline = offline
            BasemapStyleStage.forgetSprites()
            let out = try MapRenderer.render(r)
            let w = out.warnings.filter { $0.contains("sprite") }
            print("\(name): \(w)")
            #expect(w.count == 1 && w[0].contains(style) && w[0].contains("sprite \"web\"") && w[0].lowercased().contains(says), "\(w)")
            #expect(!out.scene.items.contains { if case .raster = $0 { true } else { false } })
        }
    }

    /// A sprite index with a negative size: a warning naming the style, the sheet and the entry.
    @Test func badSpriteEntryNamesIt() throws {
        let dir = MapLibreLabels.directory()
        let sheet = dir.appendingPathComponent("bad")
        try FileManager.default.copyItem(atPath: BasemapSymbolOracleTests.sprite + ".png", toPath: sheet.path + ".png")
        try Data(#"{"dot": {"x": 0, "y": 0, "width": -14, "height": 14, "pixelRatio": 1}}"#.utf8).write(to: URL(fileURLWithPath: sheet.path + ".json"))
        let layer: [String: Any] = ["id": "icons", "type": "symbol", "source": "cities", "layout": ["icon-image": "dot"]]
        let style = try Self.style(dir, "bad-sprite", [layer], sprite: "file://" + sheet.path)
        let out = try MapRenderer.render(try BasemapStyleOracleTests.request(style: style, lat: 48, lon: 10, zoom: 4, symbols: true))
        let w = out.warnings.filter { $0.contains("sprite") }
        #expect(w.count == 1 && w[0].contains(style) && w[0].contains("\"dot\".width"), "\(w)")
    }

    /// TileJSON with `"scheme": "tms"` (rows counted from the south) from the loopback server:
    /// the map as MapLibre draws the same tiles; read as xyz rows instead, the map is wrong.
    @Test func tmsTileJSON() throws {
        let server = try Server()
        let dir = MapLibreLabels.directory()
        var light = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: BasemapStyleOracleTests.lightStyle))) as! [String: Any]
        light["layers"] = (light["layers"] as! [[String: Any]]).filter { $0["type"] as? String != "symbol" }
        func write(_ name: String, scheme: String) throws -> String {
            let doc: [String: Any] = ["tilejson": "3.0.0", "tiles": [server.base + "/tms/{z}/{x}/{y}.pbf"], "scheme": scheme,
                                      "minzoom": 0, "maxzoom": 6]
            let docPath = dir.appendingPathComponent(name + "-tiles.json")
            try JSONSerialization.data(withJSONObject: doc).write(to: docPath)
            var s = light
            s["sources"] = ["ne": ["type": "vector", "url": "file://" + docPath.path]]
            let p = dir.appendingPathComponent(name + ".json")
            try JSONSerialization.data(withJSONObject: s).write(to: p)
            return p.path
        }
        let tms = try write("tms", scheme: "tms"), xyz = try write("xyz", scheme: "xyz")
        func render(_ style: String) throws -> RGBAImage {
            var r = try BasemapStyleOracleTests.request(style: style, lat: 50, lon: 10, zoom: 4)
            r.tiles.cacheDirectory = server.cache
            let out = try MapRenderer.render(r)
            #expect(out.summary.basemapStyle?.tiles.failed == 0)
            try out.data.write(to: dir.appendingPathComponent(URL(fileURLWithPath: style).deletingPathExtension().lastPathComponent + "-ours.png"))
            return try PNGCodec.decode(data: out.data)
        }
        // MapLibre reads the same tiles from the MBTiles file (pymgl_oracle.py).
        let theirs = try MapLibreLabels.render(style: tms, lat: 50, lon: 10, zoom: 4, symbols: false,
                                               to: dir.appendingPathComponent("tms-maplibre.png").path)
        let d = try ImageDiff.compare(try render(tms), theirs, options: .init(threshold: 0.1)).differentFraction
        let c = try ImageDiff.compare(try render(xyz), theirs, options: .init(threshold: 0.1)).differentFraction
        print("TMS TileJSON: \(String(format: "%.3f", 100 * d))% of pixels differ from MapLibre's; read as xyz \(String(format: "%.3f", 100 * c))% (\(dir.path))")
        #expect(d <= 0.03)
        #expect(c > 5 * d)
    }
}
