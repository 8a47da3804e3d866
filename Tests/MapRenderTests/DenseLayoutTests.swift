import TestSupport
import Foundation
import Testing
import MapRenderCore
@testable import MapRender

/// Issue 13 on generated adversarial layouts: counts are never hidden, clusters stay supercluster's.
@Suite struct DenseLayoutTests {
    func csvFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dense-\(UUID()).csv")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A hub of 400 rows at one airport and 14 neighbours of 20–30 rows each at 50–500 km, plus
    /// scattered single points: the US flight table's shape.
    static func hubCSV() -> String {
        var rng = SeededRandom(seed: 13)
        var csv = "id,name,lat,lon,population\n"
        var id = 0
        func add(_ name: String, _ lat: Double, _ lon: Double, _ pop: Int) { id += 1; csv += "\(id),\(name),\(lat),\(lon),\(pop)\n" }
        for _ in 0..<400 { add("ORD", 41.9786, -87.9048, 1000) }
        for n in 0..<14 {
            let bearing = Double(n) / 14 * 2 * .pi
            let km = 50 + Double(rng.next() % 450)
            let lat = 41.9786 + km / 111 * cos(bearing), lon = -87.9048 + km / (111 * cos(41.98 * .pi / 180)) * sin(bearing)
            let rows = 20 + Int(rng.next() % 11)
            for _ in 0..<rows { add("N\(n)", lat, lon, 10 + n) }
        }
        for k in 0..<300 {
            let lat = 25 + Double(rng.next() % 2300) / 100, lon = -124 + Double(rng.next() % 5500) / 100
            add("P\(k)", lat, lon, Int(rng.next() % 100_000))
        }
        return csv
    }

    func boxesOverlap(_ scene: Scene) -> Double {
        let b = scene.bubbles
        return BubbleSpacing.worstOverlap(x: b.map(\.x), y: b.map(\.y), r: b.map(\.radius))
    }

    @Test func hubWithNeighboursHidesNoCount() throws {
        let url = try csvFile(Self.hubCSV())
        defer { try? FileManager.default.removeItem(at: url) }
        for size in [(1024.0, 768.0), (600.0, 450.0)] {
            var r = RenderRequest()
            r.inputs = [url.path]
            r.width = size.0; r.height = size.1
            let result = try MapRenderer.render(r)
            let s = result.summary
            #expect(result.scene.bubbles.count > 3)
            // Bubbles overlap by at most a quarter of the smaller radius.
            #expect(boxesOverlap(result.scene) <= BubbleSpacing.maxOverlap + 1e-9)
            // Bubbles (and their counts) are drawn after every marker.
            let markerIndex = result.scene.items.lastIndex { if case .markers = $0 { return true } else { return false } }
            let bubbleIndex = result.scene.items.firstIndex { if case .bubbles = $0 { return true } else { return false } }
            if let m = markerIndex, let b = bubbleIndex { #expect(b > m) }
            // Membership is supercluster's: every point is drawn, in a bubble, or outside the view.
            #expect(s.input.pointsRead > 700 + 14 * 20)
            #expect(s.pointsDrawn + s.clusters.pointsInside == s.input.pointsRead)
            #expect(s.clusters.pointsOutsideView == 0)
        }
    }

    /// A uniform field of 40,000 points: every cluster holds hundreds, so bubbles take the large
    /// radius steps while supercluster's centres sit ~40 px apart. Before spacing, bubbles overlap
    /// by more than a quarter radius (0.27, checked on the plan itself); after, by at most that.
    @Test func uniformFieldBubblesOverlapAtMostAQuarter() throws {
        var rng = SeededRandom(seed: 7)
        var csv = "id,lat,lon\n"
        for i in 0..<40_000 {
            csv += "\(i),\(40 + Double(rng.next() % 100_000) / 10_000),\(-5 + Double(rng.next() % 100_000) / 10_000)\n"
        }
        let url = try csvFile(csv)
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.width = 600; r.height = 450
        let result = try MapRenderer.render(r)
        let data = ProjectedPoints(points: try PointReader.read(path: url.path, options: InputOptions()).points, style: r.style)
        let raw = MapRenderer.planMarks(r, viewport: result.viewport, data: data)
        let rawOverlap = BubbleSpacing.worstOverlap(x: raw.bubbles.map(\.x), y: raw.bubbles.map(\.y),
                                                    r: raw.bubbles.map { r.style.cluster.step(for: $0.count).radius })
        #expect(rawOverlap > BubbleSpacing.maxOverlap)  // the case needs the nudge
        #expect(boxesOverlap(result.scene) <= BubbleSpacing.maxOverlap + 1e-9)
        // Same clusters: counts and ids unchanged by the nudge.
        #expect(result.scene.bubbles.map(\.count).sorted() == raw.bubbles.map(\.count).sorted())
        #expect(result.summary.clusters.pointsInside + result.summary.pointsDrawn == 40_000)
        try Snapshot.assertMatches(result.data, named: "uniform-field", format: .png, maxDifferentPixels: 40)
    }

    /// Two dense clusters side by side whose bubbles (largest radius step) would overlap by half.
    @Test func bubbleSpacingSeparatesToTheAllowedOverlap() {
        var x = [100.0, 110, 100, 300], y = [100.0, 100, 100, 300]
        let r = [32.0, 17, 14, 14]
        BubbleSpacing.separate(x: &x, y: &y, r: r)
        #expect(BubbleSpacing.worstOverlap(x: x, y: y, r: r) <= 0.25 + 1e-9)
        // The far bubble does not move.
        #expect(x[3] == 300 && y[3] == 300)
        // Deterministic.
        var x2 = [100.0, 110, 100, 300], y2 = [100.0, 100, 100, 300]
        BubbleSpacing.separate(x: &x2, y: &y2, r: r)
        #expect(x == x2 && y == y2)
    }
}
