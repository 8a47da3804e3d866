import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// `--basemap-style` against an independent renderer: MapLibre Native (PyPI pymgl, installed by
/// scripts/deps.sh with Mesa's software EGL) draws the same style over the same tiles (the
/// fixture's MBTiles; maprender reads the PMTiles converted from it) at 1024x768, symbol layers
/// off. They may differ in at most 3% of pixels past the comparison's colour threshold, with
/// anti-aliased pixels forgiven (pixelmatch's rule, `ImageDiff`).
@Suite(.serialized) struct BasemapStyleOracleTests {
    static let script = TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/pymgl_oracle.py")
    static let mbtiles = TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/ne-omt.mbtiles")
    static let lightStyle = TestPaths.repoFile("styles/basemap-light.json")

    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-pymgl-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    static func request(style: String, lat: Double, lon: Double, zoom: Double, symbols: Bool = false) throws -> RenderRequest {
        var r = RenderRequest()
        r.points = PointSet()
        r.allowEmpty = true
        r.layout.scaleBar = false
        r.width = 1024; r.height = 768
        r.view = .center(lat: lat, lon: lon, zoom: zoom)
        var s = try MapLibreStyle.load(path: style)
        if !symbols { s.layers.removeAll { $0.type == "symbol" } }
        r.basemapStyle = s
        return r
    }

    /// The share of pixels that differ between maprender and MapLibre Native for one view.
    func difference(_ name: String, style: String = lightStyle, lat: Double, lon: Double, zoom: Double) throws -> Double {
        let ours = try MapRenderer.render(try Self.request(style: style, lat: lat, lon: lon, zoom: zoom))
        let theirs = dir.appendingPathComponent("\(name)-maplibre.png").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", Self.script, style, theirs, "1024", "768", "\(lon)", "\(lat)", "\(zoom)", Self.mbtiles]
        var env = ProcessInfo.processInfo.environment
        env["EGL_PLATFORM"] = "surfaceless"
        p.environment = env
        try p.run(); p.waitUntilExit()
        try #require(p.terminationStatus == 0, "pymgl_oracle.py failed for \(name) (scripts/deps.sh installs pymgl and Mesa's EGL)")
        let oursPath = dir.appendingPathComponent("\(name).png").path
        try ours.data.write(to: URL(fileURLWithPath: oursPath))
        let a = try PNGCodec.decode(data: ours.data)
        let b = try PNGCodec.decode(data: try Data(contentsOf: URL(fileURLWithPath: theirs)))
        let result = try ImageDiff.compare(a, b, options: .init(threshold: 0.1), makeDiffImage: true)
        if let img = result.diffImage {
            try PNGCodec.encode(img).write(to: dir.appendingPathComponent("\(name)-diff.png"))
        }
        let d = result.differentFraction
        print("maprender vs MapLibre Native, \(name): \(String(format: "%.3f", d * 100))% of pixels differ (\(oursPath), \(theirs))")
        return d
    }

    @Test func worldZoom1() throws {
        #expect(try difference("world-z1", lat: 20, lon: 0, zoom: 1) <= 0.03)
    }

    @Test func europeZoom4() throws {
        #expect(try difference("europe-z4", lat: 50, lon: 10, zoom: 4) <= 0.03)
    }

    @Test func alpsZoom6() throws {
        #expect(try difference("alps-z6", lat: 46.5, lon: 9, zoom: 6) <= 0.03)
    }

    /// OpenMapTiles' Positron (its source pointed at the fixture): its boundaries' line-blur is not
    /// drawn here, the rest must agree.
    @Test func positronZoom4() throws {
        var s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
            TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/Fixtures/positron/style.json")))) as! [String: Any]
        s["sources"] = ["openmaptiles": ["type": "vector", "url": "pmtiles://" + TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/ne-omt.pmtiles")]]
        let path = dir.appendingPathComponent("positron.json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        #expect(try difference("positron-z4", style: path.path, lat: 50, lon: 10, zoom: 4) <= 0.03)
    }

    /// A circle layer (the cities, radius by zoom and rank, a white stroke) over the light style.
    @Test func circlesZoom4() throws {
        var s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.lightStyle))) as! [String: Any]
        s["sources"] = ["ne": ["type": "vector", "url": "pmtiles://" + TestPaths.repoFile("samples/ne_vector_z0-6.pmtiles")]]
        var layers = s["layers"] as! [[String: Any]]
        layers.append(["id": "cities", "type": "circle", "source": "ne", "source-layer": "place", "filter": ["==", "class", "city"],
                       "paint": ["circle-color": "#d04030", "circle-opacity": 0.8,
                                 "circle-radius": ["interpolate", ["linear"], ["zoom"], 2, 2, 6, ["case", ["==", ["get", "rank"], 1], 9, 5]],
                                 "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5]])
        s["layers"] = layers
        let path = dir.appendingPathComponent("circles.json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        #expect(try difference("circles-z4", style: path.path, lat: 50, lon: 10, zoom: 4) <= 0.03)
    }

    /// line-gap-width (a casing: two lines either side of a gap) and line-offset, by zoom.
    @Test func gapWidthAndOffsetZoom4() throws {
        var s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.lightStyle))) as! [String: Any]
        s["sources"] = ["ne": ["type": "vector", "url": "pmtiles://" + TestPaths.repoFile("samples/ne_vector_z0-6.pmtiles")]]
        var layers = (s["layers"] as! [[String: Any]]).filter { ($0["id"] as! String).hasPrefix("boundary") == false }
        layers.append(["id": "cased", "type": "line", "source": "ne", "source-layer": "boundary", "filter": ["==", "admin_level", 2],
                       "paint": ["line-color": "#806080", "line-width": 1.2,
                                 "line-gap-width": ["interpolate", ["linear"], ["zoom"], 2, 1, 6, 6]]])
        layers.append(["id": "offset", "type": "line", "source": "ne", "source-layer": "boundary", "filter": ["==", "admin_level", 4],
                       "paint": ["line-color": "#4080c0", "line-width": 1.5, "line-offset": 3]])
        s["layers"] = layers
        let path = dir.appendingPathComponent("gap.json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        #expect(try difference("gap-offset-z4", style: path.path, lat: 45, lon: -95, zoom: 4) <= 0.03)
    }

    /// Past the tiles' maximum zoom (6) both stretch the zoom-6 tiles.
    @Test func overzoomedZoom8() throws {
        #expect(try difference("geneva-z8", lat: 46.3, lon: 6.5, zoom: 8) <= 0.03)
    }
}
