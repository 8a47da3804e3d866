import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
@testable import MapRender

/// Shapes made from rows: great-circle arcs (`--to-lat`/`--to-lon`), geodesic circles
/// (`--circle-radius`) and texts inside markers (`marker-symbol`, `--number-markers`). The
/// geometry is checked against GeographicLib (GreatCircleTests), the drawing against Mapnik
/// (MapnikOracleTests.greatCircleArcsAcrossTheAntimeridian) and SVG/PDF against the PNG
/// (CrossFormatTests); the goldens here are the README's pictures, looked at when recorded.
@Suite struct RouteTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-routes-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func flights() throws -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/flights.csv")]
        r.pointArcs = PointArcs(latField: "dest_lat", lonField: "dest_lon")
        r.lineOnly = true
        r.style = try Style.load(path: TestPaths.repoFile("samples/flights-style.json"))
        r.width = 1000; r.height = 560
        r.layout.attribution = "Airports: OurAirports / vega_datasets; routes made up"
        return r
    }

    /// The flight routes of samples/flights.csv: 90 arcs, those to Asia and Oceania across the
    /// Pacific and 180°, widths and colours by `flights`; the view fits the arcs (the JFK–Hong
    /// Kong arc reaches 79°N, which no airport does).
    @Test func flightArcsAcrossThePacific() throws {
        let result = try MapRenderer.render(try Self.flights())
        #expect(result.summary.input.geometries == ["LineString": 90])
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        // The fit includes the arcs: the top of the view is north of 78.9°N (the JFK–Hong Kong arc's top).
        let v = result.viewport
        let northEdge = WebMercator.lat(y: v.centerY - v.height / 2 / v.worldSize)
        #expect(northEdge > 78.9, "north edge \(northEdge)")
        // Every drawn arc is continuous: no step of a path jumps half the world (a wrong unwrap
        // across 180° would draw a line round it). Straight stretches are simplified to a few
        // long steps, so steps of a few hundred pixels are right.
        for case .shapes(let b) in result.scene.items {
            for path in 0..<b.pathCount {
                for ring in b.pathRingStart[path]..<b.pathRingStart[path + 1] {
                    for p in (b.ringStart[ring] + 1)..<b.ringStart[ring + 1] {
                        #expect(abs(b.coords[2 * p] - b.coords[2 * p - 2]) < v.worldSize / 2)
                    }
                }
            }
        }
        try Snapshot.assertMatches(result.data, named: "flight-arcs", format: .png)
    }

    /// Arc widths by an expression of the row: the data's line batches carry each row's width.
    @Test func arcWidthsFollowTheExpression() throws {
        let result = try MapRenderer.render(try Self.flights())
        var widths = Set<Double>()
        for case .shapes(let b) in result.scene.items where b.kind == .line { widths.insert(b.paint.strokeWidth) }
        // flights 3 -> 0.8 px, 70 -> 4 px, linearly.
        #expect(widths.contains(0.8) && widths.contains(4) && widths.contains(0.8 + (14 - 3) / 67.0 * 3.2))
    }

    /// Bad destinations are skipped and counted by reason, naming the points; good rows still draw.
    @Test func badDestinationsAreSkippedByReason() throws {
        let csv = try write("bad.csv", """
            name,lat,lon,to_lat,to_lon
            ok,40,-74,51.5,-0.1
            north,40,-74,95,10
            east,40,-74,10,190
            empty,40,-74,,10
            text,40,-74,abc,10
            same,40,-74,40,-74
            antipode,40,-74,-40,106
            ok2,10,170,12,-170
            """)
        var r = RenderRequest()
        r.inputs = [csv]
        r.pointArcs = PointArcs(latField: "to_lat", lonField: "to_lon")
        let result = try MapRenderer.render(r)
        #expect(result.summary.input.geometries?["LineString"] == 2)
        #expect(result.warnings.contains("--to-lat/--to-lon: skipped 6 rows: 1 destination latitude outside -90..90 (point 1); 1 destination longitude outside -180..180 (point 2); 1 destination empty (point 3); 1 destination is not a number (point 4); 1 destination is the origin (point 5); 1 destination is the origin's antipode (no single great circle) (point 6)"),
                "\(result.warnings)")
    }

    @Test func aMissingDestinationColumnIsAnError() throws {
        let csv = try write("cols.csv", "name,lat,lon,dest_lat,dest_lon\na,1,2,3,4\n")
        var r = RenderRequest()
        r.inputs = [csv]
        r.pointArcs = PointArcs(latField: "dest_lat", lonField: "dest_lng")
        #expect(throws: MapRenderError.self) { try MapRenderer.render(r) }
        do { _ = try MapRenderer.render(r) } catch let e as MapRenderError {
            #expect(e.kind == .usage && e.message.contains("to-lon reads 'dest_lng', which"), "\(e.message)")
        }
        r.pointArcs = PointArcs(latField: "dest_lat", lonField: "")
        do { _ = try MapRenderer.render(r); Issue.record("no error") } catch let e as MapRenderError {
            #expect(e.kind == .usage && e.message.contains("give --to-lon too"), "\(e.message)")
        }
    }

    /// 50 km circles at 0° and at 70° latitude, each fitted: on the ground both are 100 km
    /// across (the scale bars say so), on the map the one at 70° is 1 / cos 70° = 2.92 times
    /// larger; the drawn polygons' pixel heights show it.
    @Test(arguments: [0.0, 70.0])
    func circlesOf50km(latitude: Double) throws {
        let csv = try write("c\(Int(latitude)).csv", "name,lat,lon\ncentre,\(latitude),20\n")
        var r = RenderRequest()
        r.inputs = [csv]
        r.pointCircles = PointCircles(radius: .metres(50_000))
        r.width = 400; r.height = 400
        r.view = .center(lat: latitude, lon: 20, zoom: latitude == 0 ? 7 : 5.5)
        r.layout.scaleBar = true
        let result = try MapRenderer.render(r)
        var polygon: ShapeBatch?
        for case .shapes(let b) in result.scene.items where b.kind == .polygon && b.fillsPathsApart { polygon = b }
        let b = try #require(polygon)
        let ys = stride(from: 1, to: b.coords.count, by: 2).map { b.coords[$0] }
        let xs = stride(from: 0, to: b.coords.count, by: 2).map { b.coords[$0] }
        let height = ys.max()! - ys.min()!, width = xs.max()! - xs.min()!
        // 100 km in pixels at this zoom and latitude (Web Mercator: 512·2^z px per 40,075 km at the
        // equator, times 1 / cos φ); the ring's north and south reach 0.4497° each way.
        let v = result.viewport
        let expectedHeight = (WebMercator.y(lat: latitude - 0.449660182) - WebMercator.y(lat: latitude + 0.449660182)) * v.worldSize
        #expect(abs(height - expectedHeight) < 0.5, "height \(height), expected \(expectedHeight)")
        #expect(abs(width - 2 * 0.449660182 / cos(latitude * .pi / 180) / 360 * v.worldSize) < 0.5, "width \(width)")
        try Snapshot.assertMatches(result.data, named: "circles-50km-\(Int(latitude))", format: .png)
    }

    @Test func badRadiiAreSkippedOrRefused() throws {
        let csv = try write("radii.csv", "name,lat,lon,r\na,10,20,5000\nb,11,20,-3\nc,12,20,\nd,13,20,far\ne,14,20,2km\nf,15,20,0\ng,16,20,20000km\n")
        var r = RenderRequest()
        r.inputs = [csv]
        r.pointCircles = try RenderOptionTable.circleRadius(OptionValue(word: "r"), file: "--circle-radius", path: "circle-radius")
        let result = try MapRenderer.render(r)
        #expect(result.summary.input.geometries?["Polygon"] == 2)
        #expect(result.warnings.contains("--circle-radius: skipped 5 rows: 1 radius negative (point 1); 1 radius missing (point 2); 1 radius is not a distance (point 3); 1 radius zero (point 5); 1 radius over 10000 km (point 6)"), "\(result.warnings)")
        for bad in ["-500m", "500", "0km", "12000km", "5 miles"] {
            #expect(throws: MapRenderError.self, "\(bad)") {
                try RenderOptionTable.request(commandLine: [("circle-radius", OptionValue(word: bad))])
            }
        }
        let r2 = try RenderOptionTable.request(commandLine: [("circle-radius", OptionValue(word: "2.5km"))])
        #expect(r2.pointCircles == PointCircles(radius: .metres(2500)))
        do { _ = try RenderOptionTable.request(commandLine: [("circle-radius", OptionValue(word: "-500m"))]) } catch let e as MapRenderError {
            #expect(e.message == #"--circle-radius: the radius must be more than 0, got "-500m""#, "\(e.message)")
        }
    }

    /// The README's Tissot indicatrix: 500 km circles every 30° and 20°; the circles at 60° are twice as wide as at the equator (1 / cos 60°).
    @Test func tissotIndicatrix() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/tissot.csv")]
        r.pointCircles = PointCircles(radius: .metres(500_000))
        r.clustering = nil
        r.style = try Style.load(path: TestPaths.repoFile("samples/circles-style.json"))
        r.width = 900; r.height = 640
        let result = try MapRenderer.render(r)
        #expect(result.summary.input.geometries == ["Polygon": 88, "Point": 88])
        try Snapshot.assertMatches(result.data, named: "tissot", format: .png)
    }

    /// A GPS track with its stops numbered in input order (`--number-markers`): the numbers
    /// measured by Pango fit their pins' heads, in white on the red pins (WCAG: the better of
    /// black and white).
    @Test func gpsTrackWithNumberedStops() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/track-stops.geojson")]
        r.numberMarkers = true
        r.clustering = nil
        r.layout.scaleBar = true
        r.width = 700; r.height = 500
        let result = try MapRenderer.render(r)
        let batch = try #require(result.scene.markers.first)
        let texts = (0..<batch.count).compactMap { batch.symbols[Int(batch.symbol[$0])].text?.text }
        #expect(texts.sorted { Int($0)! < Int($1)! } == (1...6).map(String.init))
        for s in batch.symbols where s.text != nil {
            #expect(MarkerTextLayout.fits(s) && s.text?.color == .white && s.size == 28)
        }
        try Snapshot.assertMatches(result.data, named: "numbered-stops", format: .png)
    }

    /// Pango's measures: three-digit and three-letter texts grow a default pin, circle and
    /// square until they fit.
    @Test func pangoMeasuredTextsFitTheirMarkers() throws {
        let text = PangoText(systemFonts: false)
        let measurer = CachingTextMeasurer(text)
        for shape in MarkerShape.allCases {
            let base = MarkerSymbol(shape: shape, size: shape == .pin ? 28 : 12, fill: RGBA.parse("#2b6cb0")!, stroke: .white, strokeWidth: 1, opacity: 1)
            for t in ["1", "42", "888", "WMW", "é"] {
                let s = MarkerTextLayout.symbol(base, text: t, family: "DejaVu Sans", textScale: 1, measurer: measurer)
                #expect(MarkerTextLayout.fits(s), "\(shape) \(t)")
                #expect(s.size >= base.size)
            }
        }
    }

    /// The text inside a marker is in every format: one 60 px circle with "8" drawn as PNG, and
    /// as SVG and PDF rasterised by librsvg and poppler; each shows as many white pixels inside
    /// the circle (the digit; the circle's own pixels are blue), within a fifth, and never none.
    /// (The cross-format matrix compares whole maps, where a missing digit is too few pixels.)
    @Test func markerTextsAreInSVGAndPDF() throws {
        let csv = try write("eight.csv", "name,lat,lon,marker-symbol\na,0,0,8\n")
        var r = RenderRequest()
        r.inputs = [csv]
        r.defaultBasemap = false
        r.style.marker.shape = .circle; r.style.marker.size = 60; r.style.marker.fill = RGBA.parse("#1f4e99")!
        r.width = 100; r.height = 100
        r.view = .center(lat: 0, lon: 0, zoom: 3)
        func whiteInside(_ img: RGBAImage) -> Int {
            var n = 0
            for y in 0..<img.height {
                for x in 0..<img.width {
                    let dx = Double(x) + 0.5 - 50, dy = Double(y) + 0.5 - 50
                    guard dx * dx + dy * dy < 26 * 26 else { continue }
                    let o = 4 * (y * img.width + x)
                    if img.pixels[o] > 200 && img.pixels[o + 1] > 200 && img.pixels[o + 2] > 200 { n += 1 }
                }
            }
            return n
        }
        let png = whiteInside(try PNGCodec.decode(data: MapRenderer.render(r).data))
        #expect(png > 60, "white pixels of the digit in the PNG: \(png)")
        r.format = .svg
        let svg = dir.appendingPathComponent("eight.svg")
        try MapRenderer.render(r).data.write(to: svg)
        r.format = .pdf
        let pdf = dir.appendingPathComponent("eight.pdf")
        try MapRenderer.render(r).data.write(to: pdf)
        try CrossFormatTests.runTool("rsvg-convert", package: "librsvg2-bin", ["--width", "100", "--height", "100", "--output", dir.appendingPathComponent("svg.png").path, svg.path])
        try CrossFormatTests.runTool("pdftoppm", package: "poppler-utils", ["-png", "-singlefile", "-scale-to-x", "100", "-scale-to-y", "100", pdf.path, dir.appendingPathComponent("pdf").path])
        for name in ["svg.png", "pdf.png"] {
            let n = whiteInside(try PNGCodec.decode(path: dir.appendingPathComponent(name).path))
            #expect(abs(Double(n - png)) <= 0.2 * Double(png), "\(name): \(n) white pixels inside the circle, PNG \(png)")
        }
    }
}
