import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// Where a basemap style's labels go, against MapLibre Native (pymgl): the same style and view are
/// drawn by MapLibre with its symbol layers and without them; the pixels that differ are its
/// labels, grouped into boxes (`MapLibreLabels.boxes`), and each must have one of maprender's
/// labels at the same place. Glyphs differ by design (MapLibre's signed-distance fields from the
/// same DejaVu Sans, made by make_glyphs.py), so places are compared, not pixels.
@Suite(.serialized) struct BasemapSymbolOracleTests {
    /// Lake polygons of the fixture named "lake" at their poles (`symbol-placement: point` over a
    /// polygon layer): MapLibre names each polygon of a tile at its pole of inaccessibility, so a lake
    /// across a tile edge (Superior, at 90° W) gets a label each side, and so does maprender's.
    @Test func polygonLabelsAtTheirPoles() throws {
        let dir = MapLibreLabels.directory()
        var s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: BasemapStyleOracleTests.lightStyle))) as! [String: Any]
        var layers = (s["layers"] as! [[String: Any]]).filter { $0["type"] as? String != "symbol" }
        layers.append(["id": "lake-names", "type": "symbol", "source": "ne", "source-layer": "water", "filter": ["==", "class", "lake"],
                       "layout": ["text-field": "lake", "text-font": ["DejaVu Sans Book"], "text-size": 12],
                       "paint": ["text-color": "#c00000"]])
        s["layers"] = layers
        s["sources"] = ["ne": ["type": "vector", "url": "pmtiles://" + TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/ne-omt.pmtiles")]]
        let style = dir.appendingPathComponent("lakes.json")
        try JSONSerialization.data(withJSONObject: s).write(to: style)

        let out = try MapRenderer.render(try BasemapStyleOracleTests.request(style: style.path, lat: 45, lon: -85, zoom: 4, symbols: true))
        try out.data.write(to: dir.appendingPathComponent("lakes.png"))
        #expect(out.summary.basemapStyle?.unsupported == [])
        let ours = out.scene.labels.filter { $0.text == "lake" }.map(\.box)
        let theirs = try MapLibreLabels.boxes(style: style.path, lat: 45, lon: -85, zoom: 4, in: dir)
        // Each of MapLibre's labels has one of maprender's whose centre is within 4 px of its centre.
        var matched = 0
        for t in theirs {
            let best = ours.map { hypot($0.cx - t.cx, $0.cy - t.cy) }.min() ?? .infinity
            if best <= 4 { matched += 1 } else { print("MapLibre's label at \(Int(t.cx)),\(Int(t.cy)) unmatched (nearest \(best) px)") }
        }
        print("lake labels: MapLibre \(theirs.count), maprender \(ours.count), \(matched) of MapLibre's within 4 px of one of ours (\(dir.path))")
        #expect(theirs.count >= 15)
        #expect(Double(matched) >= 0.9 * Double(theirs.count))
        #expect(abs(ours.count - theirs.count) <= 3)
        // Two on Lake Superior, each side of the tile edge at 90° W, as MapLibre.
        let edge = out.viewport.pixel(x: WebMercator.x(lon: -90), y: WebMercator.y(lat: 47.5))
        let superior = ours.filter { abs($0.cy - edge.y) < 30 && abs($0.cx - edge.x) < 120 }
        #expect(superior.count == 2 && superior.contains { $0.cx < edge.x } && superior.contains { $0.cx > edge.x }, "\(superior)")
    }
}

/// MapLibre Native's labels of a style at a view, as boxes in CSS px: the style drawn with and
/// without its symbol layers (pymgl_oracle.py), the differing pixels grown by 2 px (so a word's
/// glyphs join) and grouped into connected boxes.
enum MapLibreLabels {
    static func directory() -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-symbols-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    private static let glyphLock = NSLock()
    nonisolated(unsafe) private static var glyphs: String?

    /// MapLibre glyph PBFs of the pinned DejaVu Sans (Book and Bold), made once per test process.
    static func glyphDirectory() throws -> String {
        glyphLock.lock(); defer { glyphLock.unlock() }
        if let g = glyphs { return g }
        let d = directory().appendingPathComponent("glyphs").path
        let fonts = "/usr/share/fonts/truetype/dejavu/"
        try run(["python3", TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/make_glyphs.py"), d,
                 "DejaVu Sans Book=\(fonts)DejaVuSans.ttf", "DejaVu Sans Bold=\(fonts)DejaVuSans-Bold.ttf"])
        glyphs = d
        return d
    }

    static func run(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["EGL_PLATFORM"] = "surfaceless"
        p.environment = env
        try p.run(); p.waitUntilExit()
        try #require(p.terminationStatus == 0, "\(args.prefix(2).joined(separator: " ")) failed (scripts/deps.sh installs pymgl, Pillow and Mesa's EGL)")
    }

    /// MapLibre Native's drawing of `style` at 1024x768 (symbols on or off).
    static func render(style: String, lat: Double, lon: Double, zoom: Double, symbols: Bool, to path: String) throws -> RGBAImage {
        var args = ["python3", BasemapStyleOracleTests.script, style, path, "1024", "768", "\(lon)", "\(lat)", "\(zoom)",
                    BasemapStyleOracleTests.mbtiles]
        if symbols { args += ["--symbols", try glyphDirectory()] }
        try run(args)
        return try PNGCodec.decode(data: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func boxes(style: String, lat: Double, lon: Double, zoom: Double, in dir: URL) throws -> [Rect] {
        let with = try render(style: style, lat: lat, lon: lon, zoom: zoom, symbols: true, to: dir.appendingPathComponent("maplibre.png").path)
        let without = try render(style: style, lat: lat, lon: lon, zoom: zoom, symbols: false,
                                 to: dir.appendingPathComponent("maplibre-no-symbols.png").path)
        return components(differing: with, without, grow: 2)
    }

    /// Boxes of the connected groups of pixels where `a` and `b` differ (by more than 24 in a
    /// channel), each pixel grown by `grow` px.
    static func components(differing a: RGBAImage, _ b: RGBAImage, grow: Int) -> [Rect] {
        let w = a.width, h = a.height
        var mask = [Bool](repeating: false, count: w * h)
        for i in 0..<(w * h) {
            for c in 0..<3 where abs(Int(a.pixels[4 * i + c]) - Int(b.pixels[4 * i + c])) > 24 { mask[i] = true; break }
        }
        var grown = mask
        for y in 0..<h { for x in 0..<w where mask[y * w + x] {
            for yy in max(0, y - grow)...min(h - 1, y + grow) { for xx in max(0, x - grow)...min(w - 1, x + grow) { grown[yy * w + xx] = true } }
        } }
        var seen = [Bool](repeating: false, count: w * h)
        var out: [Rect] = []
        for start in 0..<(w * h) where grown[start] && !seen[start] {
            var stack = [start]
            seen[start] = true
            var x0 = w, y0 = h, x1 = 0, y1 = 0
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                    let j = ny * w + nx
                    if grown[j] && !seen[j] { seen[j] = true; stack.append(j) }
                }
            }
            // Back to the unGrown extent.
            out.append(Rect(x: Double(x0 + grow), y: Double(y0 + grow), width: Double(x1 - x0 - 2 * grow + 1), height: Double(y1 - y0 - 2 * grow + 1)))
        }
        return out
    }
}

extension Rect {
    /// The centre (tests compare label places by it).
    var cx: Double { x + width / 2 }
    var cy: Double { y + height / 2 }
}
