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

    /// One label, "Berlin" or "Letterspacing" at Berlin (a 24-px DejaVu Sans over white), in a
    /// style of its own: its paint and layout as given.
    static func textStyle(_ dir: URL, _ name: String, text: String, color: String = "#000000",
                          layout: [String: Any] = [:], paint: [String: Any] = [:]) throws -> String {
        let s: [String: Any] = [
            "version": 8,
            "sources": ["p": ["type": "vector", "url": "pmtiles://" + TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/ne-omt.pmtiles")]],
            "layers": [["id": "bg", "type": "background", "paint": ["background-color": "#ffffff"]],
                       ["id": "t", "type": "symbol", "source": "p", "source-layer": "place", "filter": ["==", "name", "Berlin"],
                        "layout": ["text-field": text, "text-font": ["DejaVu Sans Book"], "text-size": 24].merging(layout) { $1 },
                        "paint": ["text-color": color].merging(paint) { $1 }]]]
        let path = dir.appendingPathComponent(name + ".json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        return path.path
    }

    /// Ink of a grey image over white in the label's band (rows 60-140 of 400x200): its box
    /// (pixels over 10% dark), the sum of darkness, and how many pixels are partly dark (10-90%).
    struct Ink { var x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min, sum = 0.0, partial = 0 }
    static func ink(_ img: RGBAImage) -> Ink {
        var k = Ink()
        for y in 60..<140 { for x in 0..<img.width {
            let i = 4 * (y * img.width + x)
            let lum = (0.299 * Double(img.pixels[i]) + 0.587 * Double(img.pixels[i + 1]) + 0.114 * Double(img.pixels[i + 2])) / 255
            let d = 1 - lum
            k.sum += d
            if d > 0.1 { k.x0 = min(k.x0, x); k.x1 = max(k.x1, x); k.y0 = min(k.y0, y); k.y1 = max(k.y1, y) }
            if d > 0.1 && d < 0.9 { k.partial += 1 }
        } }
        return k
    }

    /// Ours and MapLibre's ink of one label style, each drawn at 400x200 centred on Berlin at zoom 4.
    static func both(_ dir: URL, _ style: String, _ name: String) throws -> (ours: Ink, theirs: Ink) {
        var r = try BasemapStyleOracleTests.request(style: style, lat: 52.52, lon: 13.4, zoom: 4, symbols: true)
        r.width = 400; r.height = 200
        r.layout.attribution = ""
        let ours = try MapRenderer.render(r)
        try ours.data.write(to: dir.appendingPathComponent(name + ".png"))
        let theirs = try MapLibreLabels.render(style: style, lat: 52.52, lon: 13.4, zoom: 4, symbols: true,
                                               to: dir.appendingPathComponent(name + "-maplibre.png").path, width: 400, height: 200)
        return (ink(try PNGCodec.decode(data: ours.data)), ink(theirs))
    }

    /// `text-letter-spacing` 0.3 em (7.2 px at 24 px): "Berlin" widens by five spacings, 36 px,
    /// and spans the same pixels as MapLibre's, within 2 px.
    @Test func letterSpacingAsMapLibre() throws {
        let dir = MapLibreLabels.directory()
        let plain = try Self.both(dir, try Self.textStyle(dir, "plain", text: "Berlin"), "plain")
        let spaced = try Self.both(dir, try Self.textStyle(dir, "spaced", text: "Berlin", layout: ["text-letter-spacing": 0.3]), "spaced")
        print("letter spacing: maprender \(plain.ours.x0)-\(plain.ours.x1) -> \(spaced.ours.x0)-\(spaced.ours.x1), MapLibre \(plain.theirs.x0)-\(plain.theirs.x1) -> \(spaced.theirs.x0)-\(spaced.theirs.x1) (\(dir.path))")
        let grownOurs = (spaced.ours.x1 - spaced.ours.x0) - (plain.ours.x1 - plain.ours.x0)
        let grownTheirs = (spaced.theirs.x1 - spaced.theirs.x0) - (plain.theirs.x1 - plain.theirs.x0)
        #expect(abs(grownOurs - 36) <= 2 && abs(grownTheirs - 36) <= 2, "\(grownOurs) \(grownTheirs)")
        #expect(abs(spaced.ours.x0 - spaced.theirs.x0) <= 2 && abs(spaced.ours.x1 - spaced.theirs.x1) <= 2)
        // The spacing is in the style's summary no longer.
        #expect(try MapLibreStyle.load(path: dir.appendingPathComponent("spaced.json").path).unsupported.isEmpty)
    }

    /// `text-halo-blur` 3 on a 2-px black halo of white text: the halo softens as MapLibre's,
    /// about as much ink (MapLibre's shader spreads it both ways from the halo's edge), about
    /// twice as many part-dark pixels, its box grown by at most 3 px a side, each as MapLibre's.
    @Test func haloBlurAsMapLibre() throws {
        let dir = MapLibreLabels.directory()
        let sharp = try Self.both(dir, try Self.textStyle(dir, "sharp", text: "Letterspacing", color: "#ffffff",
                                                           paint: ["text-halo-color": "#000000", "text-halo-width": 2]), "sharp")
        let soft = try Self.both(dir, try Self.textStyle(dir, "soft", text: "Letterspacing", color: "#ffffff",
                                                          paint: ["text-halo-color": "#000000", "text-halo-width": 2, "text-halo-blur": 3]), "soft")
        let inkOurs = soft.ours.sum / sharp.ours.sum, inkTheirs = soft.theirs.sum / sharp.theirs.sum
        let partOurs = Double(soft.ours.partial) / Double(sharp.ours.partial), partTheirs = Double(soft.theirs.partial) / Double(sharp.theirs.partial)
        print(String(format: "halo blur: ink x%.3f (MapLibre x%.3f), part-dark pixels x%.2f (MapLibre x%.2f); box %d-%d -> %d-%d (MapLibre %d-%d -> %d-%d)",
                     inkOurs, inkTheirs, partOurs, partTheirs, sharp.ours.x0, sharp.ours.x1, soft.ours.x0, soft.ours.x1,
                     sharp.theirs.x0, sharp.theirs.x1, soft.theirs.x0, soft.theirs.x1) + " (\(dir.path))")
        #expect(abs(inkOurs - inkTheirs) <= 0.1)
        #expect(partOurs >= 1.6 && partTheirs >= 1.6)
        let grownOurs = (sharp.ours.x0 - soft.ours.x0, soft.ours.x1 - sharp.ours.x1)
        let grownTheirs = (sharp.theirs.x0 - soft.theirs.x0, soft.theirs.x1 - sharp.theirs.x1)
        #expect(grownOurs.0 >= 1 && grownOurs.0 <= 3 && grownOurs.1 >= 1 && grownOurs.1 <= 3, "\(grownOurs)")
        #expect(abs(grownOurs.0 - grownTheirs.0) <= 1 && abs(grownOurs.1 - grownTheirs.1) <= 1, "\(grownOurs) \(grownTheirs)")
        // Without the blur the two halos are the same ink, within 3%.
        #expect(abs(sharp.ours.sum / sharp.theirs.sum - 1) <= 0.03)
    }

    /// The blurred halo and spaced letters in SVG and PDF (vector strokes in a group), rasterised
    /// by librsvg and poppler, match the PNG.
    @Test func blurredHaloAndSpacingInSvgAndPdf() throws {
        let dir = MapLibreLabels.directory()
        let style = try Self.textStyle(dir, "svg", text: "Letterspacing", color: "#ffffff",
                                       layout: ["text-letter-spacing": 0.1],
                                       paint: ["text-halo-color": "#203080", "text-halo-width": 2, "text-halo-blur": 2])
        var r = try BasemapStyleOracleTests.request(style: style, lat: 52.52, lon: 13.4, zoom: 4, symbols: true)
        r.width = 400; r.height = 200
        r.layout.attribution = ""
        r.format = .svg
        let svg = String(decoding: try MapRenderer.render(r).data, as: UTF8.self)
        #expect(!svg.contains("<image"))
        try CrossFormatTests.expectSVGAndPDFMatchPNG(r, name: "blurred halo", svg: 0.01, pdf: 0.01)
    }

    static let sprite = TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/Fixtures/sprite/sprite")

    /// The light style's land and borders with the test sprite (make_sprite.py): the sea filled
    /// with `checker` and lakes with `hatch` (fill-pattern by feature), cities as icons
    /// (`icon-image` by feature, `icon-size` 1.5, `icon-allow-overlap`), and `extra` layers.
    static func spriteStyle(_ dir: URL, _ name: String, sprite: Bool = true, extra: [[String: Any]] = []) throws -> String {
        var s = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: BasemapStyleOracleTests.lightStyle))) as! [String: Any]
        var layers = (s["layers"] as! [[String: Any]]).filter { $0["type"] as? String != "symbol" }
        for k in layers.indices where layers[k]["id"] as? String == "water" {
            layers[k]["paint"] = ["fill-pattern": ["match", ["get", "class"], "lake", "hatch", "checker"]]
        }
        layers.append(["id": "cities", "type": "symbol", "source": "ne", "source-layer": "place", "filter": ["==", "class", "city"],
                       "layout": ["icon-image": ["case", ["==", ["get", "capital"], 2], "square", "dot"], "icon-size": 1.5,
                                  "icon-allow-overlap": true]])
        s["layers"] = layers + extra
        s["sources"] = ["ne": ["type": "vector", "url": "pmtiles://" + TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/ne-omt.pmtiles")]]
        if sprite { s["sprite"] = "file://" + Self.sprite }
        let path = dir.appendingPathComponent(name + ".json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        return path.path
    }

    /// Icons and fill patterns from a local sprite against MapLibre Native drawing the same
    /// sprite: a small share of pixels differ; without the sprite far more do.
    @Test func spriteIconsAndPatternsAsMapLibre() throws {
        let dir = MapLibreLabels.directory()
        let style = try Self.spriteStyle(dir, "sprite"), bare = try Self.spriteStyle(dir, "bare", sprite: false)
        let theirs = try MapLibreLabels.render(style: style, lat: 50, lon: 10, zoom: 4, symbols: true,
                                               to: dir.appendingPathComponent("sprite-maplibre.png").path)
        func diff(_ s: String, _ name: String) throws -> (Double, RenderResult) {
            var r = try BasemapStyleOracleTests.request(style: s, lat: 50, lon: 10, zoom: 4, symbols: true)
            r.layout.attribution = ""
            let out = try MapRenderer.render(r)
            try out.data.write(to: dir.appendingPathComponent(name + ".png"))
            let d = try ImageDiff.compare(try PNGCodec.decode(data: out.data), theirs, options: .init(threshold: 0.1))
            return (d.differentFraction, out)
        }
        let (d, out) = try diff(style, "sprite"), (control, _) = try diff(bare, "bare")
        print("sprite icons and patterns: \(String(format: "%.3f", 100 * d))% of pixels differ from MapLibre's; without the sprite \(String(format: "%.3f", 100 * control))% (\(dir.path))")
        #expect(d <= 0.01)
        #expect(d < control / 5)
        #expect(out.summary.basemapStyle?.unsupported == [])
        let icons = out.scene.items.compactMap { if case .raster(let r) = $0 { r } else { nil } }
        #expect(icons.count >= 40, "\(icons.count) icons")
        // 1.5 times the 14-px dot and 12-px square.
        #expect(icons.allSatisfy { [21, 18].contains($0.rect.width) }, "\(Set(icons.map(\.rect.width)))")
        #expect(try MapLibreStyle.load(path: bare).unsupported.keys.sorted() == ["fill-pattern (no sprite)", "icon-image (no sprite)"])
    }

    /// Icons and labels share one collision index: with text under each city's icon (the
    /// label's top 1 em below the point), no icon overlaps a label or another icon; with
    /// `text-optional`, cities whose label does not fit keep their icon; at --scale 2 the @2x
    /// sheet is drawn (twice the pixels for the same CSS size).
    @Test func iconsShareTheCollisionIndex() throws {
        let dir = MapLibreLabels.directory()
        func render(_ name: String, optional: Bool, scale: Double = 1) throws -> Scene {
            let named: [String: Any] = ["id": "named", "type": "symbol", "source": "ne", "source-layer": "place",
                                        "filter": ["==", "class", "city"],
                                        "layout": ["icon-image": "flag", "icon-anchor": "bottom-left", "icon-offset": [-1, 0],
                                                   "text-field": "{name}", "text-font": ["DejaVu Sans Book"], "text-size": 13,
                                                   "text-anchor": "top", "text-offset": [0, 0.3], "text-optional": optional]]
            var r = try BasemapStyleOracleTests.request(style: try Self.spriteStyle(dir, name, extra: [named]), lat: 50, lon: 10, zoom: 4, symbols: true)
            r.basemapStyle?.layers.removeAll { $0.id == "cities" }
            r.scale = scale
            let out = try MapRenderer.render(r)
            try out.data.write(to: dir.appendingPathComponent(name + ".png"))
            return out.scene
        }
        let both = try render("both", optional: false), optional = try render("optional", optional: true)
        func boxes(_ s: Scene) -> (icons: [Rect], labels: [Rect]) {
            (s.items.compactMap { if case .raster(let r) = $0 { r.rect } else { nil } }, s.labels.map(\.box))
        }
        let b = boxes(both), o = boxes(optional)
        print("icons with labels: \(b.icons.count) icons, \(b.labels.count) labels; text-optional: \(o.icons.count) icons, \(o.labels.count) labels")
        #expect(b.icons.count == b.labels.count && b.icons.count >= 15)
        #expect(o.icons.count > b.icons.count && o.labels.count <= b.labels.count)
        for (name, set) in [("both", b), ("optional", o)] {
            let all = set.icons + set.labels
            var overlaps = 0
            for i in all.indices { for j in all.indices where j > i && all[i].intersects(all[j]) { overlaps += 1 } }
            #expect(overlaps == 0, "\(name): \(overlaps) overlapping icons and labels")
        }
        // The flag's foot (bottom-left, offset 1 px left at size 1) sits on the city's point.
        let retina = try render("retina", optional: true, scale: 2)
        let flags = retina.items.compactMap { if case .raster(let r) = $0 { r } else { nil } }
        #expect(!flags.isEmpty && flags.allSatisfy { $0.image.width == 20 && $0.image.height == 32 && $0.rect.width == 10 && $0.rect.height == 16 })
    }

    /// SVG and PDF keep the icons as images and the patterns as pattern fills; rasterised by
    /// librsvg and poppler they match the PNG.
    @Test func spriteInSvgAndPdf() throws {
        let dir = MapLibreLabels.directory()
        var r = try BasemapStyleOracleTests.request(style: try Self.spriteStyle(dir, "svg"), lat: 50, lon: 10, zoom: 4, symbols: true)
        r.width = 512; r.height = 384
        r.layout.attribution = ""
        try CrossFormatTests.expectSVGAndPDFMatchPNG(r, name: "sprite", svg: 0.005, pdf: 0.02)
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

    /// MapLibre Native's drawing of `style` (symbols on or off).
    static func render(style: String, lat: Double, lon: Double, zoom: Double, symbols: Bool, to path: String,
                       width: Int = 1024, height: Int = 768) throws -> RGBAImage {
        var args = ["python3", BasemapStyleOracleTests.script, style, path, "\(width)", "\(height)", "\(lon)", "\(lat)", "\(zoom)",
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
