import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite struct LabelPlacerTests {
    typealias Label = LabelPlacer.Label

    // MARK: Real data: world cities

    /// A view of the world cities: drawn markers, one label candidate per named city, priority =
    /// population, names measured 7 px per character and 14 px high.
    struct CityScene {
        var labels: [Label]
        var names: [String]
        var width: Double
        var height: Double
    }

    /// The GeoNames cities (vendored in samples/), read once; a missing file fails the tests that need it.
    static func cities() throws -> PointSet { try citiesRead.get() }
    private static let citiesRead = Result {
        var options = InputOptions()
        options.keepProperties = ["name", "population"]
        return try PointReader.read(path: TestPaths.shared("world_cities_15000.csv"), options: options).points
    }

    static func scene(minPopulation: Double, bounds: GeoBounds?, width: Double, height: Double) throws -> CityScene {
        let all = try cities()
        let popCol = all.properties.columnIndex("population")!
        let rows = (0..<all.count).filter { (all.properties.value(column: popCol, row: $0).numberValue ?? 0) >= minPopulation }
        let points = all.selecting(rows)
        let data = ProjectedPoints(points: points, style: .default)
        let v = bounds.map { ViewFitter.fit(bounds: $0, width: width, height: height) }
            ?? ViewFitter.fit(xs: data.x, ys: data.y, width: width, height: height, extent: data.styles.extent,
                              padding: EdgeInsets(all: 10), maxZoom: 16)
        // Every point's pin (one symbol: no simplestyle columns), kept when any of it is in view.
        let m = Style.default.marker
        let sym = MarkerSymbol(shape: m.shape, size: m.size, fill: m.fill, stroke: m.stroke,
                               strokeWidth: m.strokeWidth, opacity: m.opacity)
        let e = sym.extent, r = sym.pinHeadRadius
        let image = Rect(x: 0, y: 0, width: width, height: height)
        let nameCol = points.properties.columnIndex("name")!, pop = points.properties.columnIndex("population")!
        var labels: [Label] = [], names: [String] = []
        for i in 0..<points.count {
            let (x, y) = v.pixel(x: data.x[i], y: data.y[i])
            let markBox = Rect(x: x - e.left, y: y - e.top, width: e.left + e.right, height: e.top + e.bottom)
            guard markBox.intersects(image) else { continue }
            let name = points.properties.value(column: nameCol, row: i).displayText ?? ""
            labels.append(Label(markBox: markBox,
                                anchorBox: Rect(x: x - r, y: y - sym.size, width: 2 * r, height: 2 * r),
                                size: TextSize(width: 7 * Double(name.count), height: 14),
                                priority: points.properties.value(column: pop, row: i).numberValue ?? 0))
            names.append(name)
        }
        return CityScene(labels: labels, names: names, width: width, height: height)
    }

    /// The invariants every placement must keep, checked without the placer's own index where
    /// it is cheap to (sweeps over sorted boxes), and with a fresh index replaying the priority
    /// order for "was dropping justified".
    func checkInvariants(_ s: CityScene, _ result: LabelPlacer.Result, gap: Double = 3) {
        let labels = s.labels
        let image = Rect(x: 0, y: 0, width: s.width, height: s.height)
        #expect(result.placedCount + result.droppedCount == labels.count)
        #expect(result.placements.compactMap { $0 }.count == result.placedCount)
        #expect(result.order.sorted() == Array(labels.indices))

        // Placed boxes: at one of the label's positions, inside the image.
        var placed: [(box: Rect, owner: Int)] = []
        for (i, p) in result.placements.enumerated() {
            guard let p else { continue }
            #expect(p.box == LabelPlacer.box(p.position, for: labels[i], gap: gap))
            #expect(image.contains(p.box), "label \(s.names[i]) leaves the image")
            placed.append((p.box, i))
        }

        // No two placed labels intersect (sweep by x).
        placed.sort { $0.box.x < $1.box.x }
        var overlaps = 0
        for a in placed.indices {
            var b = a + 1
            while b < placed.count && placed[b].box.x < placed[a].box.maxX {
                if placed[a].box.intersects(placed[b].box) { overlaps += 1 }
                b += 1
            }
        }
        #expect(overlaps == 0)

        // No placed label covers a marker (its own or another's): sweep over marks sorted by x.
        let marks = labels.map(\.markBox).sorted { $0.x < $1.x }
        let widest = marks.map(\.width).max() ?? 0
        var covered = 0
        for (box, _) in placed {
            var lo = 0, hi = marks.count
            while lo < hi { let m = (lo + hi) / 2; if marks[m].x < box.x - widest { lo = m + 1 } else { hi = m } }
            var k = lo
            while k < marks.count && marks[k].x < box.maxX {
                if marks[k].intersects(box) { covered += 1 }
                k += 1
            }
        }
        #expect(covered == 0)

        // Replaying in priority order: a dropped label had every position blocked (by the edge, a
        // mark, or a label placed before it, i.e. of higher priority); a placed label took the first
        // free one.
        var replay = CollisionIndex(width: s.width, height: s.height, bounds: image, cellSize: 32)
        for l in labels { replay.insert(l.markBox) }
        var unjustified = 0, notFirstFree = 0
        for i in result.order {
            let free = LabelPlacer.Position.allCases.filter { replay.canPlace(LabelPlacer.box($0, for: labels[i], gap: gap)) }
            if let p = result.placements[i] {
                if free.first != p.position { notFirstFree += 1 }
                replay.insert(p.box)
            } else if !free.isEmpty {
                unjustified += 1
            }
        }
        #expect(unjustified == 0)
        #expect(notFirstFree == 0)
        // The order is by population, descending.
        for (a, b) in zip(result.order, result.order.dropFirst()) {
            #expect(labels[a].priority > labels[b].priority || (labels[a].priority == labels[b].priority && a < b))
        }
    }

    @Test func everyWorldCityInOneView() throws {
        let s = try Self.scene(minPopulation: 0, bounds: nil, width: 1200, height: 800)
        #expect(s.labels.count > 30_000)
        let result = LabelPlacer.place(s.labels, width: s.width, height: s.height)
        #expect(result.placedCount > 100)
        #expect(result.droppedCount > 20_000)
        checkInvariants(s, result)
    }

    @Test func europeanCitiesAboveHalfAMillion() throws {
        let europe = GeoBounds(west: -11, south: 35, east: 30, north: 60)
        let s = try Self.scene(minPopulation: 500_000, bounds: europe, width: 1000, height: 800)
        let result = LabelPlacer.place(s.labels, width: s.width, height: s.height)
        checkInvariants(s, result)
        #expect(result.placedCount > 40)
        // The ten most populous cities in view all get a label.
        let top10 = result.order.prefix(10)
        #expect(top10.allSatisfy { result.placements[$0] != nil },
                "dropped: \(top10.filter { result.placements[$0] == nil }.map { s.names[$0] })")
    }

    @Test func largestCitiesOfTheWorld() throws {
        let s = try Self.scene(minPopulation: 3_000_000, bounds: nil, width: 1200, height: 800)
        let result = LabelPlacer.place(s.labels, width: s.width, height: s.height)
        checkInvariants(s, result)
        // At world scale the Pearl River Delta's pins (Shenzhen, Guangzhou, Dongguan, Foshan, Hong
        // Kong) sit on top of each other: a top-10 city may be dropped, but only because
        // other markers cover all its positions, never for a label.
        var marksOnly = CollisionIndex(width: s.width, height: s.height, bounds: Rect(x: 0, y: 0, width: s.width, height: s.height))
        for l in s.labels { marksOnly.insert(l.markBox) }
        let top10 = result.order.prefix(10)
        let dropped = top10.filter { result.placements[$0] == nil }
        #expect(dropped.count <= 3)
        for i in dropped {
            let free = LabelPlacer.Position.allCases.filter { marksOnly.canPlace(LabelPlacer.box($0, for: s.labels[i], gap: 3)) }
            #expect(free.isEmpty, "\(s.names[i]) was dropped though \(free) had no marker")
        }
    }

    @Test func sameInputSameOutput() throws {
        let s = try Self.scene(minPopulation: 100_000, bounds: nil, width: 1000, height: 700)
        let a = LabelPlacer.place(s.labels, width: s.width, height: s.height)
        let b = LabelPlacer.place(s.labels, width: s.width, height: s.height)
        #expect(a == b)
        checkInvariants(s, a)
    }

    // MARK: Positions and options

    /// A 20 × 28 pin at (100, 100) with a 14 px head on top, and a 5-character label.
    let pin = Label(markBox: Rect(x: 90, y: 72, width: 20, height: 28), anchorBox: Rect(x: 93, y: 72, width: 14, height: 14),
                    size: TextSize(width: 35, height: 14), priority: 1)

    @Test func positionsSurroundTheMarkInOrder() {
        let gap = 3.0
        let b = { (p: LabelPlacer.Position) in LabelPlacer.box(p, for: pin, gap: gap) }
        #expect(LabelPlacer.Position.allCases == [.right, .left, .above, .below, .topRight, .topLeft, .bottomRight, .bottomLeft])
        #expect(b(.right) == Rect(x: 113, y: 72, width: 35, height: 14))          // centred on the head
        #expect(b(.left) == Rect(x: 52, y: 72, width: 35, height: 14))
        #expect(b(.above) == Rect(x: 82.5, y: 55, width: 35, height: 14))         // centred on the head
        #expect(b(.below) == Rect(x: 82.5, y: 103, width: 35, height: 14))        // below the tip
        #expect(b(.topRight) == Rect(x: 113, y: 58, width: 35, height: 14))
        #expect(b(.bottomLeft) == Rect(x: 52, y: 86, width: 35, height: 14))
        for p in LabelPlacer.Position.allCases {
            #expect(!b(p).intersects(pin.markBox), "\(p) covers its own mark")
        }
    }

    @Test func takesTheFirstFreePositionAndDropsWhenNoneIsFree() {
        // A neighbour's marker right of the pin: the label goes left.
        let neighbour = Rect(x: 120, y: 70, width: 20, height: 28)
        var r = LabelPlacer.place([pin], obstacles: [neighbour], width: 300, height: 300)
        #expect(r.placements[0]?.position == .left)
        // Near the left edge too: above.
        var moved = pin
        moved.markBox.x -= 60; moved.anchorBox.x -= 60
        r = LabelPlacer.place([moved], obstacles: [Rect(x: 60, y: 70, width: 20, height: 28)], width: 300, height: 300)
        #expect(r.placements[0]?.position == .above)
        // Boxed in: dropped.
        r = LabelPlacer.place([pin], obstacles: [Rect(x: 40, y: 20, width: 120, height: 40), Rect(x: 40, y: 100, width: 120, height: 40),
                                                 Rect(x: 40, y: 60, width: 49, height: 40), Rect(x: 111, y: 60, width: 49, height: 40)],
                              width: 300, height: 300)
        #expect(r.placements[0] == nil && r.droppedCount == 1 && r.placedCount == 0)
    }

    @Test func higherPriorityWinsAndTiesKeepInputOrder() {
        // Two pins 10 px apart vertically: their labels on the right would overlap.
        var a = pin, b = pin
        b.markBox.y += 10; b.anchorBox.y += 10
        a.priority = 1; b.priority = 2
        let r = LabelPlacer.place([a, b], width: 400, height: 300)
        #expect(r.order == [1, 0])
        #expect(r.placements[1]?.position == .right)
        #expect(r.placements[0]?.position == .left)
        b.priority = 1
        let tie = LabelPlacer.place([a, b], width: 400, height: 300)
        #expect(tie.order == [0, 1])
        #expect(tie.placements[0]?.position == .right)
        #expect(tie.placements[1]?.position == .left)
        var nan = a
        nan.priority = .nan
        #expect(LabelPlacer.place([nan, b], width: 400, height: 300).order == [1, 0])
    }

    @Test func previousPositionIsKeptWhileFree() {
        let r = LabelPlacer.place([pin], width: 300, height: 300, previous: [0: .below])
        #expect(r.placements[0]?.position == .below)
        // Blocked now: back to the usual order.
        let blocked = LabelPlacer.place([pin], obstacles: [Rect(x: 80, y: 104, width: 40, height: 10)],
                                        width: 300, height: 300, previous: [0: .below])
        #expect(blocked.placements[0]?.position == .right)
    }

    @Test func allowOverlapPlacesEverythingAtItsFirstPosition() {
        var options = LabelPlacer.Options()
        options.allowOverlap = true
        let labels = Array(repeating: pin, count: 5) + [Label(markBox: Rect(x: 290, y: 10, width: 10, height: 10),
                                                            anchorBox: Rect(x: 290, y: 10, width: 10, height: 10),
                                                            size: TextSize(width: 50, height: 14), priority: 0)]
        let r = LabelPlacer.place(labels, width: 300, height: 300, options: options, previous: [2: .above])
        #expect(r.placedCount == 6 && r.droppedCount == 0)
        #expect(r.placements.map { $0!.position } == [.right, .right, .above, .right, .right, .right])
    }

    @Test func labelsMayLeaveTheImageWhenTheEdgeIsNoObstacle() {
        var options = LabelPlacer.Options()
        options.keepInsideImage = false
        var edge = pin
        edge.markBox.x = 280; edge.anchorBox.x = 283
        #expect(LabelPlacer.place([edge], width: 300, height: 300, options: options).placements[0]?.position == .right)
        #expect(LabelPlacer.place([edge], width: 300, height: 300).placements[0]?.position == .left)
    }
}
