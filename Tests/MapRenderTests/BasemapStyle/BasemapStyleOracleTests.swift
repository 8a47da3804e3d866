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
    /// - Parameter oursStyle: the style maprender draws, when not `style` (a control: what a
    ///   property left out would cost).
    func difference(_ name: String, style: String = lightStyle, oursStyle: String? = nil, lat: Double, lon: Double, zoom: Double) throws -> Double {
        let ours = try MapRenderer.render(try Self.request(style: oursStyle ?? style, lat: lat, lon: lon, zoom: zoom))
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

    /// The light style with its boundary layers replaced by `layers` (over the fixture's
    /// PMTiles), written to `name`.json.
    func boundaryStyle(_ name: String, _ layers: [[String: Any]]) throws -> String {
        var s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.lightStyle))) as! [String: Any]
        s["sources"] = ["ne": ["type": "vector", "url": "pmtiles://" + TestPaths.repoFile("samples/ne_vector_z0-6.pmtiles")]]
        s["layers"] = (s["layers"] as! [[String: Any]]).filter { ($0["id"] as! String).hasPrefix("boundary") == false } + layers
        let path = dir.appendingPathComponent(name + ".json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        return path.path
    }

    /// line-blur (3 px on 5-px borders and state lines): closer to MapLibre's than the same
    /// lines drawn sharp are, and within a small share of pixels.
    @Test func lineBlurZoom4() throws {
        func layers(blur: Bool) -> [[String: Any]] {
            [["id": "borders", "type": "line", "source": "ne", "source-layer": "boundary",
              "paint": ["line-color": "#6040a0", "line-width": ["match", ["get", "admin_level"], 2, 5, 3],
                        "line-blur": blur ? ["match", ["get", "admin_level"], 2, 3, 1.5] as Any : 0]]]
        }
        let blurred = try boundaryStyle("blur", layers(blur: true)), sharp = try boundaryStyle("sharp", layers(blur: false))
        let d = try difference("line-blur-z4", style: blurred, lat: 45, lon: -95, zoom: 4)
        let control = try difference("line-blur-control-z4", style: blurred, oursStyle: sharp, lat: 45, lon: -95, zoom: 4)
        print("line-blur: \(String(format: "%.3f", 100 * d))% of pixels differ from MapLibre's; drawn sharp, \(String(format: "%.3f", 100 * control))%")
        #expect(d <= 0.01)
        #expect(d < control / 2)
    }

    /// line-offset and line-gap-width by feature (data-driven): country borders cased (a gap of 6
    /// px between two 1.5-px lines), state lines moved 4 px to their right, in one layer; each
    /// evaluated for its own feature, against MapLibre, and closer than one value for all.
    @Test func offsetAndGapByFeatureZoom4() throws {
        func layers(byFeature: Bool) -> [[String: Any]] {
            let gap: Any = byFeature ? ["case", ["==", ["get", "admin_level"], 2], 6, 0] as Any : 6
            let offset: Any = byFeature ? ["match", ["get", "admin_level"], 4, 4, 0] as Any : 0
            return [["id": "borders", "type": "line", "source": "ne", "source-layer": "boundary",
                     "paint": ["line-color": ["match", ["get", "admin_level"], 2, "#803060", "#3060c0"],
                               "line-width": ["match", ["get", "admin_level"], 2, 1.5, 1],
                               "line-gap-width": gap, "line-offset": offset]]]
        }
        let style = try boundaryStyle("by-feature", layers(byFeature: true)), constant = try boundaryStyle("constant", layers(byFeature: false))
        let d = try difference("by-feature-z4", style: style, lat: 45, lon: -95, zoom: 4)
        let control = try difference("by-feature-control-z4", style: style, oursStyle: constant, lat: 45, lon: -95, zoom: 4)
        print("line-offset/gap by feature: \(String(format: "%.3f", 100 * d))% of pixels differ from MapLibre's; with one value for all, \(String(format: "%.3f", 100 * control))%")
        #expect(d <= 0.01)
        #expect(d < control / 2)
        #expect(try MapLibreStyle.load(path: style).unsupported.isEmpty)
    }

    /// Past the tiles' maximum zoom (6) both stretch the zoom-6 tiles.
    @Test func overzoomedZoom8() throws {
        #expect(try difference("geneva-z8", lat: 46.3, lon: 6.5, zoom: 8) <= 0.03)
    }
}
