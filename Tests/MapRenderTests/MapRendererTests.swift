import TestSupport
import Foundation
import Testing
import MapRenderCairo
@testable import MapRender

/// The pipeline end to end: real files in, real images out (golden images under __Snapshots__).
@Suite struct MapRendererTests {
    func worldRequest(_ format: OutputFormat = .png) -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/populated_places.geojson")]
        r.basemaps = [TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")]
        r.style.marker.shape = .circle
        r.style.marker.size = 9
        r.width = 800; r.height = 480
        r.layout.attribution = "Made with Natural Earth"
        r.format = format
        r.clustering = nil
        return r
    }

    func csvFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pts-\(UUID()).csv")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A view given by hand that shows none of the points (latitude and longitude the other way
    /// round) warns, saying where the points are and the order the option takes; the groups of
    /// the mall it does not show are not reported as groups with no room. The right view, a
    /// fitted one, and a box that shows one point do not warn.
    @Test func aViewShowingNoPointSaysWhereThePointsAre() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/mall.csv")]
        r.width = 400; r.height = 300
        r.view = .center(lat: 2.2945, lon: 48.8584, zoom: 17)
        let swapped = try MapRenderer.render(r)
        #expect(swapped.warnings == ["none of the 36 points are in the view: they lie at latitude 48.8584 to 48.8606, "
                                     + "longitude 2.2945 to 2.3376 (--center takes LAT,LON)"])
        #expect(swapped.summary.clusters.spreadFallbacks == 0 && swapped.summary.clusters.spreadStacked == 0)
        #expect(swapped.summary.clusters.pointsOutsideView == 36)

        r.view = .center(lat: 48.8584, lon: 2.2945, zoom: 17)
        let right = try MapRenderer.render(r)
        #expect(right.warnings.isEmpty)
        // The ring of six is shown; the groups a kilometre away are not, and are not counted.
        #expect(right.summary.clusters.spreadGroups == 1 && right.summary.clusters.spreadFallbacks == 0)

        r.view = .bbox(GeoBounds(west: 48, south: 2, east: 49, north: 3))
        #expect(try MapRenderer.render(r).warnings.last?.hasSuffix("(--bbox takes WEST,SOUTH,EAST,NORTH)") == true)
        r.view = .bbox(GeoBounds(west: 2, south: 48, east: 3, north: 49))
        #expect(try MapRenderer.render(r).warnings.allSatisfy { !$0.contains("in the view") })
        r.view = .fit(zoom: nil)
        #expect(try MapRenderer.render(r).warnings.allSatisfy { !$0.contains("in the view") })
        // `--center` alone, far away: the world's smallest zoom still shows no point.
        r.view = .fitAround(lat: -60, lon: -150)
        #expect(try MapRenderer.render(r).warnings.last?.hasPrefix("none of the 36 points are in the view") == true)

        // Across the antimeridian the longitudes go the short way, as a box of them would.
        var p = RenderRequest()
        p.inputs = [TestPaths.repoFile("samples/pacific.csv")]
        p.width = 400; p.height = 300
        p.view = .bbox(GeoBounds(west: 0, south: 0, east: 10, north: 10))
        #expect(try MapRenderer.render(p).warnings.last?.contains("longitude 177.42 to -171.77 (across 180°)") == true)

        // One point.
        let one = try csvFile("name,lat,lon\nA,37.7749,-122.4194\n")
        defer { try? FileManager.default.removeItem(at: one) }
        p.inputs = [one.path]
        #expect(try MapRenderer.render(p).warnings.last == "the only point is not in the view: it lies at latitude 37.7749, "
                + "longitude -122.419 (--bbox takes WEST,SOUTH,EAST,NORTH)")
    }

    /// The dot at a spread group's true position as drawn: beside two 3 px dots its radius is
    /// 0.75 px, not the style's 2.5 (at scale 8: about 113 dark pixels, not about 1,260).
    @Test func aSpreadDotIsDrawnAtItsRadius() throws {
        var r = RenderRequest()
        let file = try csvFile("name,lat,lon\na,10,10\nb,10,10\n")
        defer { try? FileManager.default.removeItem(at: file) }
        r.inputs = [file.path]
        r.width = 60; r.height = 40; r.scale = 8
        r.view = .center(lat: 10, lon: 10, zoom: 14)
        r.defaultBasemap = false
        r.style.marker.shape = .circle
        r.style.marker.size = 3
        let result = try MapRenderer.render(r)
        #expect(result.summary.clusters.spreadGroups == 1)
        let image = try PNGCodec.decode(data: result.data)
        var dark = 0
        for i in stride(from: 0, to: image.pixels.count, by: 4)
        where image.pixels[i] < 64 && image.pixels[i + 1] < 64 && image.pixels[i + 2] < 64 { dark += 1 }
        #expect(dark > 60 && dark < 250, "\(dark) dark pixels")
    }

    /// A pin reaches up from its point: one just below the image's bottom edge shows its head and
    /// is drawn, one just above its top edge shows nothing and is not.
    @Test func pinsAreCulledByTheBoxTheyDraw() throws {
        var r = RenderRequest()
        let file = try csvFile("name,lat,lon\nlow,0,0\n")
        defer { try? FileManager.default.removeItem(at: file) }
        r.inputs = [file.path]
        r.width = 200; r.height = 100
        r.clustering = nil
        // At zoom 10 a pixel is 360 / (512 · 2^10) degrees; the point 10 px below the bottom edge...
        let px = 360 / (512 * 1024.0)
        r.view = .center(lat: (50 + 10) * px, lon: 0, zoom: 10)
        let below = try MapRenderer.render(r)
        #expect(below.summary.pointsDrawn == 1 && below.warnings.isEmpty)
        // ... and 10 px above the top edge.
        r.view = .center(lat: -(50 + 10) * px, lon: 0, zoom: 10)
        let above = try MapRenderer.render(r)
        #expect(above.summary.pointsDrawn == 0 && above.warnings.count == 1)
    }

    @Test func clusteredWorldGolden() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.shared("world_cities_15000.csv")]
        r.basemaps = [TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")]
        r.width = 800; r.height = 480
        let result = try MapRenderer.render(r)
        let s = result.summary
        // Every point is drawn alone, inside exactly one bubble, or in a spread group.
        #expect(s.pointsDrawn + s.clusters.pointsInside + s.clusters.pointsOutsideView == 34006)
        #expect(s.clusters.drawn > 10)
        #expect(s.clusters.pointsOutsideView == 0)
        try Snapshot.assertMatches(result.data, named: "world-clustered", format: .png, maxDifferentPixels: 40)
    }

    @Test(arguments: [5, 30])
    func spreadGroupGolden(size: Int) throws {
        var csv = "id,name,lat,lon\n"
        for i in 0..<size { csv += "\(i + 1),Stand \(i + 1),48.8584,2.2945\n" }
        let url = try csvFile(csv)
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.width = 400; r.height = 400
        let result = try MapRenderer.render(r)
        #expect(result.summary.clusters.spreadGroups == 1)
        #expect(result.summary.clusters.spreadPoints == size)
        #expect(result.summary.pointsDrawn == size)
        #expect(result.summary.clusters.drawn == 0)
        // All pins inside the image, none overlapping.
        let m = result.scene.markers[0]
        let e = m.symbols[0].extent
        let boxes = (0..<m.count).map { Rect(x: m.x[$0] - e.left, y: m.y[$0] - e.top, width: e.left + e.right, height: e.top + e.bottom) }
        for (i, a) in boxes.enumerated() {
            #expect(Rect(x: 0, y: 0, width: 400, height: 400).contains(a))
            for b in boxes[(i + 1)...] { #expect(!a.intersects(b)) }
        }
        #expect(result.scene.legs.first?.count == size)
        try Snapshot.assertMatches(result.data, named: "spread-\(size)", format: .png, maxDifferentPixels: 40)
    }

    @Test func worldSampleGoldenPNGAndSVG() throws {
        let png = try MapRenderer.render(worldRequest(.png))
        #expect(png.summary.input.pointsRead == 243)
        #expect(png.summary.pointsDrawn == 243)
        #expect(png.summary.marks["polygon"] ?? 0 > 150)
        try Snapshot.assertMatches(png.data, named: "world-places", format: .png, maxDifferentPixels: 40)
        let svg = try MapRenderer.render(worldRequest(.svg))
        try Snapshot.assertMatches(svg.data, named: "world-places", format: .svg)
    }

    @Test func labelsInManyScriptsGolden() throws {
        // Capitals with names in Latin, Greek, Cyrillic, Arabic, Hebrew, Devanagari and CJK scripts.
        let csv = """
        name,lat,lon
        Αθήνα,37.98,23.73
        Москва,55.75,37.62
        القاهرة,30.04,31.24
        ירושלים,31.77,35.21
        東京,35.68,139.69
        서울,37.57,126.98
        नई दिल्ली,28.61,77.21
        Zürich,47.37,8.54
        """
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scripts-\(UUID()).csv")
        try Data(csv.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.basemaps = [TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")]
        r.layout.labelField = "name"
        r.clustering = nil
        r.width = 900; r.height = 420
        let result = try MapRenderer.render(r)
        #expect(result.scene.labels.map(\.text).sorted() == ["Zürich", "Αθήνα", "Москва", "ירושלים", "القاهرة", "서울", "東京", "नई दिल्ली"].sorted())
        #expect(result.scene.labels.allSatisfy { $0.width > 10 })
        try Snapshot.assertMatches(result.data, named: "labels-scripts", format: .png, maxDifferentPixels: 40)
    }

    @Test func fijiFitsTheShortWayAcrossTheAntimeridian() throws {
        var r = worldRequest()
        let csv = "name,lat,lon\nSuva,-18.14,178.44\nNadi,-17.80,177.42\nNukuʻalofa,-21.14,-175.20\nApia,-13.83,-171.77\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fiji-\(UUID()).csv")
        try Data(csv.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        r.inputs = [url.path]
        r.style.marker.shape = .pin
        r.style.marker.size = 28
        r.layout.labelField = "name"
        let result = try MapRenderer.render(r)
        let v = result.summary.view
        #expect(v.bounds[0] > v.bounds[2])  // west > east: crosses 180°
        #expect(v.zoom > 3)
        #expect(result.summary.pointsDrawn == 4)
        try Snapshot.assertMatches(result.data, named: "fiji-antimeridian", format: .png, maxDifferentPixels: 40)
    }

    @Test func renderingIsDeterministicInOneProcess() throws {
        for f in [OutputFormat.png, .svg, .pdf] {
            var r = worldRequest(f)
            r.layout.labelField = "name"
            let a = try MapRenderer.render(r).data, b = try MapRenderer.render(r).data
            #expect(a == b, "\(f) differs between two renders")
        }
    }

    @Test func renderingIsDeterministicAcrossThreads() throws {
        var r = worldRequest(.svg)
        r.layout.labelField = "name"
        let reference = try MapRenderer.render(r).data
        let results = ConcurrentResults(count: 4)
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            results.set(i, try? MapRenderer.render(r).data)
        }
        for i in 0..<4 { #expect(results.get(i) == reference) }
    }

    @Test func scaleTwoDoublesThePixels() throws {
        var r = worldRequest()
        r.scale = 2
        let result = try MapRenderer.render(r)
        let head = result.data.subdata(in: 16..<24)
        let w = head.prefix(4).reduce(0) { $0 << 8 | Int($1) }, h = head.suffix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(w == 1600 && h == 960)
        // The view is the same map: same center and zoom as at scale 1.
        let one = try MapRenderer.render(worldRequest())
        #expect(one.summary.view.zoom == result.summary.view.zoom)
    }

    @Test func failedRenderLeavesTheOldFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("map.png").path
        try MapRenderer.render(worldRequest(), to: out)
        let good = try Data(contentsOf: URL(fileURLWithPath: out))
        var bad = worldRequest()
        bad.inputs = [dir.appendingPathComponent("missing.csv").path]
        #expect(throws: MapRenderError.self) { try MapRenderer.render(bad, to: out) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == good)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["map.png"])
    }
}

/// Results written from concurrent iterations.
final class ConcurrentResults: @unchecked Sendable {
    private var values: [Data?]
    private let lock = NSLock()
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ d: Data?) { lock.lock(); values[i] = d; lock.unlock() }
    func get(_ i: Int) -> Data? { lock.lock(); defer { lock.unlock() }; return values[i] }
}

/// A thread keeps its Pango font map between maps (`PangoText.forCurrentThread`: serve's workers,
/// batch jobs). A map drawn by a warm font map, after maps in other formats, fonts and scripts,
/// has the same bytes as the map drawn by a fresh one on a new thread; and a missing font family
/// is reported for the map that asks for it, not for the maps after it.
@Suite struct WarmFontMapTests {
    static func labelled(_ format: OutputFormat, font: String = "DejaVu Sans", size: Double = 12) -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/populated_places.geojson")]
        r.width = 640; r.height = 400
        r.layout.labelField = "name"
        r.style.label.font = font
        r.style.label.size = size
        r.clustering = nil
        r.format = format
        return r
    }

    /// Runs `body` on a thread of its own (a fresh `threadDictionary`, so a fresh font map).
    final class Box<T>: @unchecked Sendable { var result: Result<T, Error>?; init() {} }

    static func onNewThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let box = Box<T>(), done = DispatchSemaphore(value: 0)
        let t = Thread { box.result = Result { try body() }; done.signal() }
        t.stackSize = 8 << 20
        t.start()
        done.wait()
        return try box.result!.get()
    }

    @Test func aWarmFontMapDrawsTheSameBytesAsAFreshOne() throws {
        for format in [OutputFormat.png, .svg, .pdf] {
            let fresh = try Self.onNewThread { try MapRenderer.render(Self.labelled(format)).data }
            let warm = try Self.onNewThread { () -> Data in
                _ = try MapRenderer.render(Self.labelled(.pdf, font: "WenQuanYi Zen Hei", size: 17))
                _ = try MapRenderer.render(Self.labelled(.svg, font: "Lohit Devanagari", size: 9))
                _ = try MapRenderer.render(Self.labelled(.png, size: 30))
                return try MapRenderer.render(Self.labelled(format)).data
            }
            #expect(warm == fresh, "\(format): \(warm.count) bytes warm, \(fresh.count) fresh")
        }
    }

    @Test func aMissingFamilyIsReportedForItsMapOnly() throws {
        let warnings = try Self.onNewThread { () -> [[String]] in
            let a = try MapRenderer.render(Self.labelled(.png, font: "No Such Family Sans")).warnings
            let b = try MapRenderer.render(Self.labelled(.png)).warnings
            let c = try MapRenderer.render(Self.labelled(.png, font: "No Such Family Sans")).warnings
            return [a, b, c].map { $0.filter { $0.contains("font family") } }
        }
        #expect(warnings[0].count == 1 && warnings[0][0].contains("'No Such Family Sans'"), "\(warnings[0])")
        #expect(warnings[1].isEmpty, "\(warnings[1])")
        #expect(warnings[2] == warnings[0])
    }
}
