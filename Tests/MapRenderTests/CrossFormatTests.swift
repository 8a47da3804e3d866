import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// Every format shows the same map, checked by renderers that are not Cairo's own writers: each map
/// is rendered as PNG, SVG and PDF; the SVG is rasterised by librsvg (`rsvg-convert`), the PDF by
/// poppler (`pdftoppm`), at the PNG's pixel size, and both must match the PNG under `ImageDiff`.
///
/// Tolerance: at most 2.5% differing pixels at `--scale 1` (3% for PDF) and 1% at `--scale 2` (YIQ threshold
/// 0.1, anti-aliased pixels forgiven, as in pixelmatch). Measured on this matrix (Cairo 1.16,
/// librsvg 2.54, poppler 22.12; set MAPRENDER_XFORMAT_REPORT=1 to print the figures): at scale 1
/// 0.58–1.70% (SVG) and 0.98–1.90% (PDF), at scale 2 0.07–0.36% (SVG) and 0.12–0.53% (PDF).
/// Looking at the diff images, what differs is text: the PNG's glyphs are hinted by Cairo's
/// image backend, while Cairo's SVG and PDF carry unhinted outlines that librsvg and poppler
/// fill with their own anti-aliasing, so at scale 1 whole 1 px stems move by a pixel (at scale 2
/// the same shift is a smaller share of each stem). Poppler also widens sub-pixel strokes (the
/// 0.5 px marker rims), hence PDF above SVG. With the broken SVG markers of issue 12 put back
/// (recordings with a negative origin), this matrix failed 9 of its SVG comparisons at 3.1% to
/// 12.8% differing pixels, so the limits keep clear of both. Since bubbles are named "Paris +41"
/// and the built-in land is drawn (issue 13), the text-heavy bubble maps measure up to 2.83% for
/// PDF at scale 1 (the diff images show only glyph edges), hence 3% for PDF there; the SVG limit,
/// the one that catches the broken markers, stays 2.5%.
///
/// The tools are installed by scripts/deps.sh (librsvg2-bin, poppler-utils). A missing tool fails
/// the test with a message saying so; the suite never skips.
@Suite struct CrossFormatTests {
    /// The largest share of differing pixels allowed at a scale (see above).
    static func maxDifferentFraction(scale: Double, pdf: Bool = false) -> Double { scale >= 2 ? 0.01 : (pdf ? 0.03 : 0.025) }
    static let size = (width: 360.0, height: 240.0)

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var scale: Double
        var build: @Sendable (inout RenderRequest) throws -> Void
        var testDescription: String { "\(name) @\(Int(scale))x" }
    }

    static let countries = TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")

    /// The matrix: every marker shape (with and without opacity), spread legs, labels, callouts,
    /// bubbles, scale bar, legend, attribution and basemap, each shipped style; at scale 1 and 2.
    static let cases: [Case] = {
        let maps: [(String, @Sendable (inout RenderRequest) throws -> Void)] = [
            ("pins, spread legs, labels", { r in
                r.inputs = [TestPaths.repoFile("samples/mall.csv")]
                r.layout.labelField = "name"
            }),
            ("translucent circles, spread, labels", { r in
                r.inputs = [TestPaths.repoFile("samples/mall.csv")]
                r.style.marker.shape = .circle; r.style.marker.size = 12; r.style.marker.opacity = 0.6
                r.layout.labelField = "name"
            }),
            ("squares, callouts, basemap", { r in
                r.inputs = [TestPaths.repoFile("samples/populated_places.geojson")]
                r.basemaps = [countries]
                r.view = .bbox(GeoBounds(west: -11, south: 35, east: 30, north: 60))
                r.clustering = nil
                r.style.marker.shape = .square; r.style.marker.size = 8
                r.layout.labelField = "name"; r.layout.labelStyle = .callout
            }),
            ("legend, scale bar, attribution", { r in
                r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
                r.basemaps = [countries]
                r.style = try Style.load(path: TestPaths.repoFile("samples/categories.json"))
                r.view = .bbox(GeoBounds(west: -11, south: 35, east: 20, north: 55))
                r.clustering = nil
                // Cities of 100,000 or more: the legend's five colours without a solid carpet of
                // 0.5 px rims (a hairline carpet measures poppler's thin-line rule, not our drawing).
                r.filter = try StyleExpression.parse(jsonText: #"[">=", ["get", "population"], 100000]"#,
                                                     file: "test", path: "filter", expecting: .boolean)
                r.layout.legend = true; r.layout.scaleBar = true
                r.layout.attribution = "Cities: GeoNames (CC BY 4.0). Countries: Natural Earth"
            }),
            ("lines, polygons with holes, a GeometryCollection, simplestyle", { r in
                r.inputs = [TestPaths.repoFile("samples/geometries.geojson")]
                r.clustering = nil
                r.style.marker.shape = .circle; r.style.marker.size = 10
            }),
            ("choropleth layer, dashed line layer, stepped legend", { r in
                r.inputs = [countries]
                r.defaultBasemap = false
                r.style = try Style.parse(data: Data(#"""
                    {"layers": [{"id": "c", "type": "fill", "paint": {"fill-color": ["step", ["get", "POP_EST"], "#fee5d9", 5000000, "#fcae91", 20000000, "#fb6a4a", 100000000, "#cb181d"]}},
                                {"id": "b", "type": "line", "paint": {"line-color": "#333333", "line-width": 1.5, "line-dasharray": [3, 2]}}]}
                    """#.utf8), name: "choropleth")
                r.view = .bbox(GeoBounds(west: -11, south: 35, east: 30, north: 60))
                r.layout.legend = true
            }),
            ("great-circle arcs across 180°, widths by a property, geodesic circles", { r in
                r.inputs = [TestPaths.repoFile("samples/flights.csv")]
                r.pointArcs = PointArcs(latField: "dest_lat", lonField: "dest_lon")
                r.pointCircles = PointCircles(radius: .metres(300_000))
                r.clustering = nil
                r.style = try Style.load(path: TestPaths.repoFile("samples/flights-style.json"))
            }),
            ("labels along a storm track and at countries' poles", { r in
                r.inputs = [countries, TestPaths.repoFile("samples/tracks.csv")]
                r.pointLines = PointLines(field: "id", orderBy: "time")
                r.lineOnly = true
                r.layout.labelField = "NAME"
                r.view = .bbox(GeoBounds(west: -160, south: 14, east: -85, north: 58))
            }),
            ("numbered pins along a track", { r in
                r.inputs = [TestPaths.repoFile("samples/track-stops.geojson")]
                r.numberMarkers = true
                r.clustering = nil
            }),
            ("numbered translucent squares", { r in
                r.inputs = [TestPaths.repoFile("samples/track-stops.geojson")]
                r.numberMarkers = true
                r.clustering = nil
                r.style.marker.shape = .square; r.style.marker.size = 14; r.style.marker.opacity = 0.8
            }),
        ]
        let styles = ["default", "dark", "print", "colorblind"].map { name -> (String, @Sendable (inout RenderRequest) throws -> Void) in
            ("styles/\(name).json: bubbles, pins, labels, scale bar, attribution", { r in
                r.inputs = [TestPaths.repoFile("samples/populated_places.geojson")]
                r.basemaps = [countries]
                r.style = try Style.load(path: TestPaths.repoFile("styles/\(name).json"))
                r.view = .bbox(GeoBounds(west: -30, south: 20, east: 50, north: 65))
                r.layout.labelField = "name"; r.layout.scaleBar = true
                r.layout.attribution = "Made with Natural Earth"
            })
        }
        return (maps + styles).flatMap { m in [1.0, 2.0].map { Case(name: m.0, scale: $0, build: m.1) } }
    }()

    @Test(arguments: cases)
    func svgAndPdfMatchPng(_ c: Case) throws {
        var r = RenderRequest()
        r.width = Self.size.width; r.height = Self.size.height; r.scale = c.scale
        try c.build(&r)
        let (png, fromSVG, fromPDF) = try Self.pngSVGAndPDF(of: r)

        for (label, other) in [("SVG via librsvg", fromSVG), ("PDF via poppler", fromPDF)] {
            let d = try ImageDiff.compare(png, other, makeDiffImage: true)
            let limit = Self.maxDifferentFraction(scale: c.scale, pdf: label.hasPrefix("PDF"))
            let ok = d.differentFraction <= limit
            var where_ = ""
            if !ok {
                let keep = FileManager.default.temporaryDirectory
                    .appendingPathComponent("xformat-failures/\(c.testDescription.filter { $0.isLetter || $0.isNumber })-\(label.prefix(3))")
                try? FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
                try? PNGCodec.encode(png).write(to: keep.appendingPathComponent("png.png"))
                try? PNGCodec.encode(other).write(to: keep.appendingPathComponent("other.png"))
                try? PNGCodec.encode(d.diffImage!).write(to: keep.appendingPathComponent("diff.png"))
                where_ = "; images in \(keep.path)"
            }
            let percent = String(format: "%.3f", 100 * d.differentFraction)
            let message = "\(c.testDescription): \(label) differs from the PNG in \(d.differentPixels) of \(d.totalPixels) pixels (\(percent)%, limit \(100 * limit)%)\(where_)"
            #expect(ok, Comment(rawValue: message))
            if ProcessInfo.processInfo.environment["MAPRENDER_XFORMAT_REPORT"] != nil {
                print("xformat \(c.testDescription) \(label): \(d.differentPixels)/\(d.totalPixels) differ, \(d.antiAliasedPixels) anti-aliased")
            }
        }
    }

    /// `batch` writes SVGs through the same renderer: one job's SVG, rasterised, matches its PNG.
    @Test func batchSVGMatchesPNG() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xformat-batch-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let mall = TestPaths.repoFile("samples/mall.csv")
        let manifest = """
        { "defaults": { "input": "\(mall)", "label": "name", "size": "360x240" },
          "jobs": [ { "output": "m.png" }, { "output": "m.svg" } ] }
        """
        let jobs = try BatchManifest.parse(data: Data(manifest.utf8), name: "jobs.json", baseDirectory: dir.path)
        let report = BatchRunner.run(jobs, options: BatchOptions())
        #expect(report.failed == 0, "\(report.jobs.compactMap(\.error))")
        try Self.runTool("rsvg-convert", package: "librsvg2-bin",
                         ["--output", dir.appendingPathComponent("svg.png").path, dir.appendingPathComponent("m.svg").path])
        let png = try PNGCodec.decode(path: dir.appendingPathComponent("m.png").path)
        let other = try PNGCodec.decode(path: dir.appendingPathComponent("svg.png").path)
        let d = try ImageDiff.compare(png, other)
        let message = "batch SVG via librsvg differs from the batch PNG in \(d.differentPixels) of \(d.totalPixels) pixels"
        #expect(d.differentFraction <= Self.maxDifferentFraction(scale: 1), Comment(rawValue: message))
    }

    /// A 170k-point world dot map (the GeoNames cities five times over, jittered by up to 0.2°,
    /// deterministically) as SVG: Cairo's `<use>` per marker made 343k references, which librsvg
    /// refuses ("exceeded more than 500000 referenced elements"). Merged into paths
    /// (`MergedMarkers`), it opens in rsvg-convert and matches the PNG within the SVG limit; the
    /// same map of pins (three paints a marker, merged only where marks do not touch) too; and two
    /// renders are the same bytes.
    @Test(arguments: ["dots", "pins"])
    func denseSVGOpensInLibrsvgAndMatchesPng(_ kind: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xformat-dense-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = try String(contentsOfFile: TestPaths.repoFile("samples/world_cities.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        var csv = "id,name,country,lat,lon,population\n"
        var n = 0
        for copy in 0..<5 {
            for row in rows {
                let f = row.split(separator: ",", omittingEmptySubsequences: false)
                guard f.count == 6, let lat = Double(f[3]), let lon = Double(f[4]) else { continue }
                // A fixed jitter from the row number: 0 for the first copy, up to ±0.2° after.
                let a = Double((n &* 7919) % 2001 - 1000) / 5000, b = Double((n &* 104729) % 2001 - 1000) / 5000
                let dy = copy == 0 ? 0 : a, dx = copy == 0 ? 0 : b
                csv += "\(n),c,\(f[2]),\(min(85, max(-85, lat + dy))),\(lon + dx),1\n"
                n += 1
            }
        }
        #expect(n > 170_000)
        let input = dir.appendingPathComponent("cities.csv")
        try csv.write(to: input, atomically: true, encoding: .utf8)
        var r = RenderRequest()
        r.width = 1024; r.height = 512
        r.inputs = [input.path]
        r.clustering = nil
        r.view = .bbox(GeoBounds(west: -180, south: -60, east: 180, north: 80))
        if kind == "dots" {
            r.style.marker.shape = .circle; r.style.marker.size = 4
        } else {
            r.style.marker.shape = .pin; r.style.marker.size = 14
        }
        r.format = .png
        let png = try PNGCodec.decode(data: MapRenderer.render(r).data, name: "PNG")
        r.format = .svg
        let bytes = try MapRenderer.render(r).data
        #expect(try MapRenderer.render(r).data == bytes, "the SVG is not the same bytes twice")
        let uses = bytes.withUnsafeBytes { raw in
            var count = 0, i = 0
            let b = raw.bindMemory(to: UInt8.self), pattern = Array("<use".utf8)
            while i + 4 <= b.count {
                if b[i] == 60, b[i + 1] == pattern[1], b[i + 2] == pattern[2], b[i + 3] == pattern[3] { count += 1 }
                i += 1
            }
            return count
        }
        #expect(uses < 10_000, "\(uses) <use> elements")
        let svg = dir.appendingPathComponent("map.svg")
        try bytes.write(to: svg)
        let fromSVG = dir.appendingPathComponent("svg.png")
        try Self.runTool("rsvg-convert", package: "librsvg2-bin",
                         ["--width", String(png.width), "--height", String(png.height), "--output", fromSVG.path, svg.path])
        let other = try PNGCodec.decode(path: fromSVG.path)
        let d = try ImageDiff.compare(png, other)
        let percent = String(format: "%.3f", 100 * d.differentFraction)
        let message = "dense \(kind): SVG via librsvg differs from the PNG in \(d.differentPixels) of \(d.totalPixels) pixels (\(percent)%); \(bytes.count) bytes, \(uses) <use>"
        if ProcessInfo.processInfo.environment["MAPRENDER_XFORMAT_REPORT"] != nil { print(message) }
        #expect(d.differentFraction <= Self.maxDifferentFraction(scale: 1), Comment(rawValue: message))
    }

    /// Runs a rasteriser found on PATH; a missing tool is an error that says what to install.
    /// `r` drawn as PNG, and as SVG and PDF rasterised at the PNG's size by rsvg-convert
    /// (librsvg) and pdftoppm (poppler): three images to compare.
    static func pngSVGAndPDF(of request: RenderRequest) throws -> (png: RGBAImage, svg: RGBAImage, pdf: RGBAImage) {
        var r = request
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xformat-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        r.format = .png
        let png = try PNGCodec.decode(data: MapRenderer.render(r).data, name: "PNG")
        r.format = .svg
        let svg = dir.appendingPathComponent("map.svg")
        try MapRenderer.render(r).data.write(to: svg)
        r.format = .pdf
        let pdf = dir.appendingPathComponent("map.pdf")
        try MapRenderer.render(r).data.write(to: pdf)
        let w = String(png.width), h = String(png.height)
        let fromSVG = dir.appendingPathComponent("svg.png")
        try runTool("rsvg-convert", package: "librsvg2-bin", ["--width", w, "--height", h, "--output", fromSVG.path, svg.path])
        try runTool("pdftoppm", package: "poppler-utils",
                    ["-png", "-singlefile", "-scale-to-x", w, "-scale-to-y", h, pdf.path, dir.appendingPathComponent("pdf").path])
        return (png, try PNGCodec.decode(path: fromSVG.path), try PNGCodec.decode(path: dir.appendingPathComponent("pdf.png").path))
    }

    /// `r`'s SVG through librsvg and its PDF through poppler each differ from its PNG in at most
    /// `svg` and `pdf` of the pixels; prints the counts under `name`.
    static func expectSVGAndPDFMatchPNG(_ r: RenderRequest, name: String, svg: Double, pdf: Double) throws {
        let (png, fromSVG, fromPDF) = try pngSVGAndPDF(of: r)
        for (label, other, limit) in [("SVG via librsvg", fromSVG, svg), ("PDF via poppler", fromPDF, pdf)] {
            let d = try ImageDiff.compare(png, other)
            print("\(name), \(label): \(d.differentPixels)/\(d.totalPixels) pixels differ")
            #expect(d.differentFraction <= limit, "\(name): \(label) differs from the PNG in \(d.differentPixels) of \(d.totalPixels) pixels")
        }
    }

    static func runTool(_ name: String, package: String, _ args: [String]) throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            throw ToolError.missing("\(name) not found on PATH: install Debian package \(package) (scripts/deps.sh does)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw ToolError.failed("\(name) \(args.joined(separator: " ")) exited \(p.terminationStatus): \(String(decoding: e, as: UTF8.self))")
        }
    }

    enum ToolError: Error, CustomStringConvertible {
        case missing(String), failed(String)
        var description: String { switch self { case .missing(let s), .failed(let s): s } }
    }
}
