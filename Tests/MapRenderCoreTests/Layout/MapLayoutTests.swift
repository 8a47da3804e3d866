import Foundation
import Testing
@testable import MapRenderCore

@Suite struct MapLayoutTests {
    func points(_ coords: [(Double, Double)], names: [String]? = nil) -> PointSet {
        var p = PointSet()
        let nameCol = p.properties.addColumn("name")
        for (i, c) in coords.enumerated() {
            p.lon.append(c.0); p.lat.append(c.1)
            p.properties.appendRow([(nameCol, names.map { .string($0[i]) } ?? .missing)])
        }
        return p
    }

    func plan(_ v: Viewport, _ data: ProjectedPoints) -> MarkPlan {
        MarkPlanner.plan(viewport: v, data: data, clusters: nil, leaves: { _ in nil }, spread: SpreadOptions())
    }

    @Test func markersAreDrawnNorthToSouth() {
        let p = points([(0, 10), (1, 50), (2, 30), (3, -20)])
        let data = ProjectedPoints(points: p, style: .default)
        let v = ViewFitter.fit(xs: data.x, ys: data.y, width: 400, height: 300, extent: data.styles.extent,
                               padding: EdgeInsets(all: 10), maxZoom: 16)
        let (batch, order) = MapLayout.markers(viewport: v, data: data, plan: plan(v, data))
        #expect(order == [1, 2, 0, 3])
        #expect(batch.y == batch.y.sorted())
        #expect(batch.count == 4)
    }

    @Test func markersOutsideTheViewAreCulled() {
        let p = points([(0, 0), (100, 0), (-100, 0)])
        let data = ProjectedPoints(points: p, style: .default)
        let v = ViewFitter.center(lat: 0, lon: 0, zoom: 5, width: 200, height: 200)
        let (batch, order) = MapLayout.markers(viewport: v, data: data, plan: plan(v, data))
        #expect(order == [0])
        #expect(abs(batch.x[0] - 100) < 1e-9 && abs(batch.y[0] - 100) < 1e-9)
    }

    /// The dot at a spread group's true position is the style's (2.5 px) beside pins and 12 px
    /// circles, and at most half the marker beside small dots (two 3 px circles: 0.75 px), so that
    /// it never reads as a third, darker point.
    @Test func aSpreadGroupsDotIsSmallerThanItsMarkers() {
        let p = points([(10, 10), (10, 10), (20, 20), (20, 20)])
        for (shape, size, dot) in [(MarkerShape.pin, 28.0, 2.5), (.circle, 12, 2.5), (.circle, 3, 0.75), (.square, 4, 1)] {
            var style = Style.default
            style.marker.shape = shape
            style.marker.size = size
            let data = ProjectedPoints(points: p, style: style)
            let v = ViewFitter.fit(xs: data.x, ys: data.y, width: 400, height: 300, extent: data.styles.extent,
                                   padding: EdgeInsets(all: 10), maxZoom: 16)
            let marks = plan(v, data)
            let scene = MapLayout.scene(viewport: v, scale: 1, style: style, data: data, plan: marks, basemaps: [],
                                        options: LayoutOptions(), measurer: FakeTextMeasurer())
            let legs = scene.legs
            #expect(marks.spreadGroups.count == 2 && legs.count == 1, "\(shape) \(size)")
            #expect(legs.first?.dotR == [dot, dot], "\(shape) \(size)")
        }
        // A member growing in (an animation's scale 1/16) leaves its group's dot as it was.
        var style = Style.default
        style.marker.shape = .circle
        style.marker.size = 12
        let data = ProjectedPoints(points: p, style: style, scale: [1, 0.0625, 1, 1])
        let v = ViewFitter.fit(xs: data.x, ys: data.y, width: 400, height: 300, extent: data.styles.extent,
                               padding: EdgeInsets(all: 10), maxZoom: 16)
        let scene = MapLayout.scene(viewport: v, scale: 1, style: style, data: data, plan: plan(v, data), basemaps: [],
                                    options: LayoutOptions(), measurer: FakeTextMeasurer())
        #expect(scene.legs.first?.dotR == [2.5, 2.5])
    }

    @Test func antimeridianNeighboursLandSideBySide() {
        let p = points([(179.5, -17), (-179.5, -17)])
        let data = ProjectedPoints(points: p, style: .default)
        let v = ViewFitter.fit(xs: data.x, ys: data.y, width: 400, height: 300, extent: data.styles.extent,
                               padding: EdgeInsets(all: 20), maxZoom: 16)
        let (batch, _) = MapLayout.markers(viewport: v, data: data, plan: plan(v, data))
        #expect(batch.count == 2)
        // West of the antimeridian is on the left.
        let west = batch.x[0] < batch.x[1] ? 0 : 1
        #expect(abs(batch.x[1 - west] - batch.x[west]) < 400)
    }

    @Test func simplestylePropertiesOverrideTheStyle() {
        var p = PointSet()
        let c = p.properties.addColumn("marker-color"), s = p.properties.addColumn("marker-size")
        for (i, (col, size)) in [("#00ff00", "large"), ("00f", "small"), ("nonsense", "medium"), ("#00ff00", "large")].enumerated() {
            p.lon.append(Double(i)); p.lat.append(0)
            p.properties.appendRow([(c, .string(col)), (s, .string(size))])
        }
        let styles = MarkerStyler.resolve(points: p, style: .default)
        #expect(styles.symbols.count == 3)       // default, green large, blue small
        #expect(styles.index == [1, 2, 0, 1])
        #expect(styles.symbols[1].fill == RGBA(0, 1, 0))
        #expect(styles.symbols[1].size == Style.default.marker.size * 1.35)
        #expect(styles.symbols[2].fill == RGBA(0, 0, 1))
    }

    @Test func labelsSitRightOfTheirPinAndMeasureOncePerText() {
        let p = points([(0, 0), (5, 5), (10, 10)], names: ["Springfield", "Springfield", "東京"])
        let data = ProjectedPoints(points: p, style: .default)
        let v = ViewFitter.fit(xs: data.x, ys: data.y, width: 600, height: 400, extent: data.styles.extent,
                               padding: EdgeInsets(all: 10), maxZoom: 16)
        let fake = FakeTextMeasurer()
        let cached = CachingTextMeasurer(fake)
        var opts = LayoutOptions()
        opts.labelField = "name"
        opts.attribution = "© test"
        let scene = MapLayout.scene(viewport: v, scale: 1, style: .default, data: data, basemaps: [], options: opts, measurer: cached)
        let labels = scene.labels
        #expect(labels.count == 3)
        #expect(fake.calls == 4)  // "Springfield" once, "東京" once, the attribution, the line-height probe "Hg"
        let m = scene.markers[0]
        for (k, l) in labels.enumerated() {
            let sym = m.symbols[Int(m.symbol[k])]
            #expect(l.x > m.x[k] + sym.pinHeadRadius)
            let headCenter = m.y[k] - sym.size + sym.pinHeadRadius
            #expect(abs(l.y + l.height / 2 - headCenter) < 1e-9)
        }
        #expect(scene.markCounts["attribution"] == 1)
        #expect(scene.markCounts["label"] == 3)
    }

    @Test func basemapCopiesAcrossTheAntimeridian() throws {
        // A square straddling 180° (given unsplit: 178 → -178) seen from a view centred on 180°.
        var shapes = ShapeSet()
        shapes.add(kind: .polygon, rings: [[178, -10, -178, -10, -178, 10, 178, 10, 178, -10]], feature: 0)
        let v = ViewFitter.fit(bounds: GeoBounds(west: 170, south: -20, east: -170, north: 20), width: 400, height: 400)
        let batches = ShapeLayout.batches(for: shapes, viewport: v, style: .default)
        let b = try #require(batches.first)
        #expect(b.pathCount == 1)
        let xsPx = stride(from: 0, to: b.coords.count, by: 2).map { b.coords[$0] }
        // Drawn as one 4° wide square around the center, not stretched across the world.
        let width = xsPx.max()! - xsPx.min()!
        #expect(abs(width - 4.0 / 360 * v.worldSize) < 0.5)
        #expect(abs((xsPx.max()! + xsPx.min()!) / 2 - 200) < 0.5)
    }

    /// Layout draws a bubble as its plan says (radius, text, whether the text shows), so a plan
    /// made without the style's steps (an animation frame's growing bubble) needs no patching.
    @Test func bubblesAreDrawnAsPlanned() {
        let data = ProjectedPoints(points: PointSet(), style: .default)
        let v = ViewFitter.center(lat: 0, lon: 0, zoom: 3, width: 300, height: 200)
        var marks = MarkPlan()
        marks.bubbles = [
            .init(x: 100, y: 100, count: 12, clusterID: 1, aggregates: [:], representative: nil, radius: 33, text: "12"),
            .init(x: 200, y: 80, count: 7, clusterID: 2, aggregates: [:], representative: nil, radius: 5, text: "7",
                  showsText: false),
            .init(x: 150, y: 150, count: 3, clusterID: 3, aggregates: [:], representative: nil, radius: 0, text: "3"),
        ]
        let scene = MapLayout.scene(viewport: v, scale: 1, style: .default, data: data, plan: marks, basemaps: [],
                                    options: LayoutOptions(), measurer: FakeTextMeasurer())
        let drawn = scene.bubbles
        // One without its count (growing or vanishing) under the others; a zero radius is not drawn.
        #expect(drawn.map(\.radius) == [5, 33])
        #expect(drawn.map(\.text) == ["", "12"])
        #expect(drawn[1].textBox.width > 0 && drawn[0].textBox.width == 0)
        #expect(drawn[1].fill == Style.default.cluster.step(for: 12).fill)
    }

    /// A bubble's name and the label of the point it is named after keep their sides apart: in an
    /// animation frame the point may be drawn, travelling into the bubble, beside the bubble named
    /// after it. Each tries its own hint first and reports its own side.
    @Test(arguments: [LayoutOptions.LabelStyle.plain, .callout])
    func aBubbleAndItsRepresentativeKeepTheirOwnSides(style: LayoutOptions.LabelStyle) {
        let p = points([(0, 0)], names: ["Alpha"])
        var markerStyle = Style.default
        markerStyle.marker.shape = .circle
        markerStyle.marker.size = 12
        let data = ProjectedPoints(points: p, style: markerStyle)
        let v = ViewFitter.center(lat: 0, lon: -6, zoom: 3, width: 300, height: 200)
        var marks = plan(v, data)
        let point = v.pixel(x: data.x[0], y: data.y[0])
        marks.bubbles = [.init(x: point.x - 130, y: point.y, count: 3, clusterID: 1, aggregates: [:], representative: 0,
                               radius: 14, text: "3")]
        marks.labelHints = LabelSides(points: [0: .left], bubbles: [0: .below])
        var options = LayoutOptions()
        options.labelField = "name"
        options.labelStyle = style
        let (scene, sides) = MapLayout.layout(viewport: v, scale: 1, style: markerStyle, data: data, plan: marks,
                                              basemaps: [], options: options, measurer: FakeTextMeasurer())
        #expect(sides == LabelSides(points: [0: .left], bubbles: [0: .below]))
        var boxes: [String: Rect] = [:]
        for item in scene.items {
            if case .label(let l) = item { boxes[l.text] = Rect(x: l.x, y: l.y, width: l.width, height: l.height) }
            if case .callout(let c) = item { boxes[c.text] = c.box }
        }
        let named = boxes["Alpha +2"], own = boxes["Alpha"]
        #expect(named.map { $0.y > point.y } == true, "the bubble's name is not below it: \(String(describing: named))")
        #expect(own.map { $0.maxX < point.x } == true, "the point's label is not left of it: \(String(describing: own))")
    }
}
