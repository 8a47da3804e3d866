import Foundation
import Testing
import MapRenderCairo
import TestSupport
@testable import MapRender

/// Icon markers (`--marker-icon`, the style's `marker.icon`): drawn by category from PNG and SVG
/// files (samples/icons, drawn by hand for maprender), anchored, counted in fitting and in the
/// labels' collisions, the same in SVG and PDF (rasterised by librsvg and poppler) as in the PNG,
/// deterministic, and a bad file is an error naming it.
@Suite struct IconMarkerTests {
    static let sample = TestPaths.repoFile("samples/icons")

    /// The places of samples/icons with the sample style (icons by `kind`), unclustered, labelled.
    static func places() throws -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/icons/places.csv")]
        r.style = try OptionFiles().style(TestPaths.repoFile("samples/icons/style.json"))
        r.clustering = nil
        r.width = 640; r.height = 420
        r.layout.labelField = "name"
        return r
    }

    /// One point at the centre of a white image without a basemap, with `icon` as its marker.
    static func single(_ icon: String, anchor: MarkerIcon.Anchor? = nil, size: Double = 1) -> RenderRequest {
        var r = RenderRequest()
        var points = PointSet()
        points.lon = [2.35]; points.lat = [48.85]
        points.ids = IDColumn([.number(1)])
        points.properties.appendEmptyRow()
        r.points = points
        r.defaultBasemap = false
        r.style.background = RGBA(0.5, 0.5, 0.5)
        r.style.marker.icon = StyleExpression(constant: .string("\(sample)/\(icon)"))
        r.style.marker.iconAnchor = anchor
        r.style.marker.iconSize = size
        r.width = 120; r.height = 100
        r.view = .center(lat: 48.85, lon: 2.35, zoom: 12)
        return r
    }

    /// The box of pixels that differ from the grey background (white outlines included):
    /// (minX, minY, maxX + 1, maxY + 1).
    static func ink(_ png: Data) throws -> (x0: Int, y0: Int, x1: Int, y1: Int) {
        let img = try PNGCodec.decode(data: png)
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for y in 0..<img.height {
            for x in 0..<img.width {
                let i = (y * img.width + x) * 4
                let p = img.pixels
                // Ink: a pixel clearly not the background's grey (128, 128, 128).
                if abs(Int(p[i]) - 128) + abs(Int(p[i + 1]) - 128) + abs(Int(p[i + 2]) - 128) > 24 {
                    x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x + 1); y1 = max(y1, y + 1)
                }
            }
        }
        return (x0, y0, x1, y1)
    }

    /// Looked at (Tests/MapRenderTests/__Snapshots__/IconMarkerTests/icons-by-category.png):
    /// cafés as brown cups, museums as blue temple fronts (SVG), parks as green trees (PNG), the
    /// two places without a kind as purple pins standing on their point; every label beside its
    /// icon, none over another icon.
    @Test func iconsByCategory() throws {
        let result = try MapRenderer.render(try Self.places())
        let batch = try #require(result.scene.markers.first)
        let names = ["cafe.svg", "museum.svg", "park.png", "pin.svg"]
        #expect(Set(batch.symbols.compactMap { $0.icon.map { ($0.file as NSString).lastPathComponent } }) == Set(names))
        // Each point's icon is its kind's (markers are drawn north to south: match them by position).
        let csv = try String(contentsOfFile: TestPaths.repoFile("samples/icons/places.csv"), encoding: .utf8)
        let kinds = csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[1] }
        var counts: [String: Int] = [:]
        for k in 0..<batch.count { counts[((batch.symbols[Int(batch.symbol[k])].icon?.file ?? "none") as NSString).lastPathComponent, default: 0] += 1 }
        #expect(counts["none"] == nil, "\(counts)")
        #expect(counts["cafe.svg"] == kinds.filter { $0 == "cafe" }.count)
        #expect(counts["museum.svg"] == kinds.filter { $0 == "museum" }.count)
        #expect(counts["park.png"] == kinds.filter { $0 == "park" }.count)
        #expect(counts["pin.svg"] == kinds.filter { $0.isEmpty }.count)
        // Pins stand on their point; the round icons are centred on it.
        for i in Set(batch.symbol) {
            let icon = try #require(batch.symbols[Int(i)].icon)
            #expect(icon.anchor == (icon.file.hasSuffix("pin.svg") ? .bottom : .center) && icon.pinLike == icon.file.hasSuffix("pin.svg"))
        }
        // Labels avoid every icon, and every icon lies inside the image (fitting counts it).
        let frame = Rect(x: 0, y: 0, width: 640, height: 420)
        for l in result.scene.labels {
            for k in 0..<batch.count { #expect(!l.box.intersects(batch.box(at: k)), "label \(l.text) over an icon") }
        }
        for k in 0..<batch.count { #expect(frame.contains(batch.box(at: k))) }
        #expect(result.scene.labels.count == batch.count)
        try Snapshot.assertMatches(result.data, named: "icons-by-category", format: .png)
    }

    /// The anchor puts the icon where it says: a pin's tip on the point (bottom, chosen because it
    /// narrows to a point), a disc's centre on it, and a given `top-left` its corner, measured on
    /// the PNG's pixels (the point is the image's centre, (60, 50); the icons' white outlines
    /// show on the grey background).
    @Test func anchors() throws {
        // pin.svg is 24×32: its outline from x 1.25 to 22.75, y 0.75 to its tip at 31.5.
        let pin = try Self.ink(MapRenderer.render(Self.single("pin.svg")).data)
        #expect(abs(Double(pin.x0 + pin.x1) / 2 - 60) <= 1, "pin centred: \(pin)")
        #expect(abs(pin.y1 - 50) <= 1, "pin's tip on the point: \(pin)")
        #expect(abs(pin.y0 - 19) <= 1, "pin's top 31 px above it: \(pin)")
        // cafe.svg is a 24×24 disc of radius 11.75 with its outline: centred on the point.
        let cafe = try Self.ink(MapRenderer.render(Self.single("cafe.svg")).data)
        #expect(abs(Double(cafe.x0 + cafe.x1) / 2 - 60) <= 1 && abs(Double(cafe.y0 + cafe.y1) / 2 - 50) <= 1, "cafe centred: \(cafe)")
        #expect(abs((cafe.x1 - cafe.x0) - 24) <= 1)
        // The PNG icon (a 24-pixel disc with its outline), anchored top-left and drawn twice its
        // size: its corner on the point, 48 px wide.
        let park = try Self.ink(MapRenderer.render(Self.single("park.png", anchor: .topLeft, size: 2)).data)
        #expect(abs(park.x0 - 60) <= 1 && abs(park.y0 - 50) <= 1, "park's corner on the point: \(park)")
        #expect(abs((park.x1 - park.x0) - 48) <= 1 && abs((park.y1 - park.y0) - 48) <= 1, "48 px: \(park)")
        // A centred pin (the style's anchor wins over the rule): its box's middle on the point.
        let centred = try Self.ink(MapRenderer.render(Self.single("pin.svg", anchor: .center)).data)
        #expect(abs(Double(centred.y0 + centred.y1) / 2 - 50) <= 1, "\(centred)")
    }

    /// SVG icons stay vector in SVG and PDF (librsvg draws them through Cairo's vector backends),
    /// a PNG icon is embedded once; rasterised by librsvg and poppler, they match the PNG within
    /// the cross-format tolerance (CrossFormatTests), at scale 1 and 2.
    @Test(arguments: [1.0, 2.0])
    func svgAndPdfMatchPng(scale: Double) throws {
        var r = try Self.places()
        r.scale = scale
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("icons-xformat-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        r.format = .png
        let png = try PNGCodec.decode(data: MapRenderer.render(r).data, name: "PNG")
        r.format = .svg
        let svgData = try MapRenderer.render(r).data
        let svgText = String(decoding: svgData, as: UTF8.self)
        // One embedded image (park.png) and vector paths for the SVG icons.
        #expect(svgText.components(separatedBy: "<image").count - 1 == 1)
        #expect(svgText.components(separatedBy: "<path").count - 1 > 20)
        let svg = dir.appendingPathComponent("map.svg")
        try svgData.write(to: svg)
        r.format = .pdf
        let pdf = dir.appendingPathComponent("map.pdf")
        try MapRenderer.render(r).data.write(to: pdf)
        let w = String(png.width), h = String(png.height)
        let fromSVG = dir.appendingPathComponent("svg.png")
        try CrossFormatTests.runTool("rsvg-convert", package: "librsvg2-bin", ["--width", w, "--height", h, "--output", fromSVG.path, svg.path])
        try CrossFormatTests.runTool("pdftoppm", package: "poppler-utils",
                                     ["-png", "-singlefile", "-scale-to-x", w, "-scale-to-y", h, pdf.path, dir.appendingPathComponent("pdf").path])
        for (label, url) in [("SVG via librsvg", fromSVG), ("PDF via poppler", dir.appendingPathComponent("pdf.png"))] {
            let d = try ImageDiff.compare(png, try PNGCodec.decode(path: url.path))
            let limit = CrossFormatTests.maxDifferentFraction(scale: scale, pdf: label.hasPrefix("PDF"))
            #expect(d.differentFraction <= limit, "\(label) at scale \(scale): \(100 * d.differentFraction)% of the pixels differ (limit \(100 * limit)%)")
        }
        // Without the icons the same map differs from it: the comparison sees them.
        var plain = try Self.places()
        plain.scale = scale
        plain.style.marker.icon = nil
        let withoutIcons = try PNGCodec.decode(data: MapRenderer.render(plain).data)
        #expect(try ImageDiff.compare(png, withoutIcons).differentFraction > 0.01)
    }

    /// The same bytes every time: SVG twice in one process (Cairo's and librsvg's id counters are
    /// renumbered), PDF twice, PNG on one thread and on four.
    @Test func deterministicBytes() throws {
        var r = try Self.places()
        for format in [OutputFormat.svg, .pdf] {
            r.format = format
            #expect(try MapRenderer.render(r).data == MapRenderer.render(r).data, "\(format)")
        }
        r.format = .png
        r.threads = 1
        let one = try MapRenderer.render(r).data
        r.threads = 4
        #expect(try MapRenderer.render(r).data == one)
    }

    static func expectError(_ body: () throws -> Void, exit code: Int32, naming file: String, saying: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("no error for \(file)", sourceLocation: sourceLocation)
        } catch let e as MapRenderError {
            #expect(e.exitCode == code, "\(e.message)", sourceLocation: sourceLocation)
            #expect(e.message.contains(file) && e.message.contains(saying), "\(e.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    /// A missing icon (66), a file that is not an image, a PNG whose header claims 100,000 px a
    /// side (refused before decoding), a truncated PNG, a broken SVG, an SVG without a size and
    /// one too large (65): each an error naming the file, through the library and a style.
    @Test func badIconFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("icons-bad-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let p = dir.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: p))
            return p
        }
        let park = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(Self.sample)/park.png")))
        var huge = Array(park.prefix(33))
        huge.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])   // 100000 × 100000
        let cases: [(String, [UInt8], Int32, String)] = [
            ("notes.png", Array("not an image\n".utf8), 65, "not an image"),
            ("huge.png", huge, 65, "100000x100000"),
            ("cut.png", Array(park.prefix(park.count / 2)), 65, "not a readable PNG"),
            ("broken.svg", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect".utf8), 65, "not a readable SVG"),
            ("sizeless.svg", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"5\" height=\"5\"/></svg>".utf8), 65, "no width and height"),
            ("wide.svg", Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4000\" height=\"20\"/>".utf8), 65, "4000x20"),
        ]
        for (name, bytes, code, saying) in cases {
            let path = try file(name, bytes)
            Self.expectError({ _ = try IconLoader.load(file: path) }, exit: code, naming: path, saying: saying)
            var r = Self.single("pin.svg")
            r.style.marker.icon = StyleExpression(constant: .string(path))
            Self.expectError({ _ = try MapRenderer.render(r) }, exit: code, naming: path, saying: saying)
        }
        let missing = dir.appendingPathComponent("missing.svg").path
        Self.expectError({ _ = try IconLoader.load(file: missing) }, exit: 66, naming: missing, saying: "no such file")
        // Through a style: the file named relative to the style's folder.
        let style = dir.appendingPathComponent("style.json")
        try #"{"marker": {"icon": ["match", ["get", "kind"], "cafe", "nowhere.svg", "notes.png"]}}"#.write(to: style, atomically: true, encoding: .utf8)
        Self.expectError({ _ = try OptionFiles().style(style.path) }, exit: 66, naming: dir.appendingPathComponent("nowhere.svg").path, saying: "no such file")
        // The option: checked when given.
        var settings = RenderSettings()
        Self.expectError({ try RenderOptionTable.option(named: "marker-icon")!.apply(OptionValue(word: "\(dir.path)/notes.png"), to: &settings, context: OptionContext(files: OptionFiles(), file: "--marker-icon", path: "marker-icon")) },
                         exit: 65, naming: "notes.png", saying: "not an image")
    }

    /// The animated SVG references each icon once (an `<image>` of the file's bytes) and places it
    /// in `MarkerGeometry.iconRect` as Cairo does: in Chromium, paused at frame times, it matches
    /// the PNG frames (an SVG and a PNG icon, moving; the spread legs' bound, 0.2 %; measured
    /// 0–0.0013 %, one pixel), and pins' frames do not.
    @Test func animatedSVGIconsInChromiumMatchThePNGFrames() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try AnimationTestData.writeCSV([
            ["1,cafe,45.0,9.0", "2,park,44.0,9.5", "3,other,45.5,10.5"],
            ["1,cafe,45.0,12.0", "2,park,46.0,12.5", "3,other,44.5,10.5"],
        ], to: dir)
        let svgPath = dir.appendingPathComponent("anim.svg").path
        var r = AnimationRequest(source: .keyframes(paths), output: .animatedSVG(svgPath))
        r.base.width = 320
        r.base.height = 240
        r.base.view = .center(lat: 45, lon: 11, zoom: 5.5)
        r.base.clustering = nil
        r.base.style.marker.icon = try StyleExpression.parse(jsonText: #"["match", ["get", "name"], "cafe", "cafe.svg", "park", "park.png", "pin.svg"]"#,
                                                             file: "test", path: "marker.icon", expecting: .string)
        r.base.style.marker.iconFolder = Self.sample
        r.framesPerTransition = 6
        r.fps = 6
        let (svg, frames) = try AnimationTestData.animatedSVGAndPNGFrames(r, svgPath: svgPath)
        #expect(svg.components(separatedBy: "<image id=\"maprender-icon-").count - 1 == 3)
        for (k, fraction) in try AnimatedSVGBrowserTests.browserAgainstFrames(r, svgPath: svgPath, checked: [0, 2, 4, 5], dir: dir,
                                                                                bound: 0.002, name: "browser-icon-frame",
                                                                                rendered: (svg, frames)) {
            #expect(fraction <= 0.002, "frame \(k): \(fraction * 100) % of the pixels differ")
        }
        // The comparison sees the icons: PNG frames of pins differ from the SVG's icons.
        var pins = r
        pins.base.style.marker.icon = nil
        pins.output = .inMemory(format: .png)
        var pinFrames: [Int: Data] = [:]
        try AnimationRenderer.render(pins, onFrame: { k, d in pinFrames[k] = d })
        for (k, fraction) in try AnimatedSVGBrowserTests.browserAgainstFrames(r, svgPath: svgPath, checked: [2], dir: dir, bound: 1,
                                                                                name: "browser-pin-frame", rendered: (svg, pinFrames)) {
            #expect(fraction > 0.002, "frame \(k): the icons (\(fraction * 100) % of the pixels) should show")
        }
    }

    /// `--marker-icon` names a file on the server: `maprender serve` refuses it in a request.
    @Test func serveRefusesMarkerIcon() throws {
        let option = try #require(RenderOptionTable.option(named: "marker-icon"))
        #expect(option.requestUse == .file)
        var settings = RenderSettings()
        var context = OptionContext(files: OptionFiles(), file: "request", path: "marker-icon")
        context.names = RequestNames()
        Self.expectError({ try option.apply(OptionValue(word: "\(Self.sample)/pin.svg"), to: &settings, context: context) },
                         exit: 64, naming: "server", saying: "cannot give")
    }
}
