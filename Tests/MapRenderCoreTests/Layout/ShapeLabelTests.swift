import Foundation
import Testing
@testable import MapRenderCore

/// Labels of the data's lines and polygons share the point labels' collision index and priority:
/// whichever ranks higher keeps its place, the other gives way, and no two overlap.
@Suite struct ShapeLabelTests {
    static let v = Viewport(centerX: 0.5, centerY: 0.5, zoom: 3, width: 400, height: 200)

    static func lonLat(_ px: Double, _ py: Double) -> (Double, Double) {
        let w = v.world(px: px, py: py)
        return (WebMercator.lon(x: w.x), WebMercator.lat(y: w.y))
    }

    /// A point "Town" at the image's centre and a line "Route" running 50 px to its right, along
    /// where the town's label goes first (right of its marker); each with a `pop` priority.
    static func layout(townPop: Double, routePop: Double) -> Scene {
        var p = PointSet()
        let name = p.properties.addColumn("name"), pop = p.properties.addColumn("pop")
        let c = lonLat(200, 100)
        p.lon.append(c.0); p.lat.append(c.1)
        p.properties.appendRow([(name, .string("Town")), (pop, .number(townPop))])
        var lines = ShapeSet()
        let ln = lines.properties.addColumn("name"), lp = lines.properties.addColumn("pop")
        lines.properties.appendRow([(ln, .string("Route")), (lp, .number(routePop))])
        let a = lonLat(215, 100), b = lonLat(290, 100)
        lines.add(kind: .line, rings: [[a.0, a.1, b.0, b.1]], feature: 0, row: 0)
        var style = Style.default
        style.marker.shape = .circle
        style.marker.size = 8
        let data = ProjectedPoints(points: p, style: style)
        var options = LayoutOptions()
        options.labelField = "name"
        options.labelPriority = "pop"
        let layers = MapLayer.standard(style: style, basemaps: [], shapes: lines,
                                       shapeLabels: [ShapeLabels(shapes: lines, field: "name")])
        return MapLayout.scene(viewport: v, scale: 1, style: style, data: data, layers: layers,
                               options: options, measurer: FakeTextMeasurer())
    }

    static func overlaps(_ scene: Scene) -> Bool {
        scene.labels.contains { l in scene.pathLabels.contains { $0.boxes.contains { $0.intersects(l.box) } } }
    }

    @Test func townRanksHigher() throws {
        let scene = Self.layout(townPop: 1000, routePop: 10)
        let town = try #require(scene.labels.first { $0.text == "Town" })
        // Its first choice, right of the marker; the route's label, there too, gives way.
        #expect(town.x > 200 && abs(town.y + town.height / 2 - 100) < 1)
        #expect(scene.pathLabels.isEmpty)
        #expect(scene.labelsDropped == 1)
    }

    @Test func routeRanksHigher() throws {
        let scene = Self.layout(townPop: 10, routePop: 1000)
        let route = try #require(scene.pathLabels.first)
        #expect(route.text == "Route" && route.glyphs.map(\.text).joined() == "Route")
        #expect(route.glyphs.allSatisfy { abs($0.angle) < 1e-9 })
        // The town's label takes another side, clear of the route's glyphs.
        let town = try #require(scene.labels.first { $0.text == "Town" })
        #expect(!(town.x > 200 && abs(town.y + town.height / 2 - 100) < 1), "town label still right of its marker: \(town.box)")
        #expect(!Self.overlaps(scene))
    }

    @Test func polygonLabelAtItsPoleOrDropped() throws {
        // A C-shaped polygon: its centroid lies in the notch, outside it; its pole is in the back.
        func ring(_ pts: [(Double, Double)]) -> [Double] { pts.flatMap { let g = Self.lonLat($0.0, $0.1); return [g.0, g.1] } }
        let c = ring([(100, 20), (300, 20), (300, 60), (160, 60), (160, 140), (300, 140), (300, 180), (100, 180), (100, 20)])
        var shapes = ShapeSet()
        let n = shapes.properties.addColumn("name")
        shapes.properties.appendRow([(n, .string("Cee"))])
        shapes.properties.appendRow([(n, .string("A very long name that cannot fit"))])
        shapes.add(kind: .polygon, rings: [c], feature: 0, row: 0)
        let tiny = ring([(20, 20), (40, 20), (40, 40), (20, 40), (20, 20)])
        shapes.add(kind: .polygon, rings: [tiny], feature: 1, row: 1)
        var options = LayoutOptions()
        options.labelField = "name"
        let layers = MapLayer.standard(style: .default, basemaps: [], shapes: shapes, shapeLabels: [ShapeLabels(shapes: shapes, field: "name")])
        let scene = MapLayout.scene(viewport: Self.v, scale: 1, style: .default, data: ProjectedPoints(points: PointSet(), style: .default),
                                    layers: layers, options: options, measurer: FakeTextMeasurer())
        let label = try #require(scene.labels.first)
        #expect(scene.labels.count == 1 && label.text == "Cee")
        // The back of the C is 60 px wide (100...160) and the arms 40 px high: the pole is in the
        // back, 30 px from its sides, at x = 130.
        #expect(abs(label.x + label.width / 2 - 130) < 1.5, "centre \(label.x + label.width / 2)")
        #expect(scene.labelsDropped == 1, "the long name does not fit its 20 px square")
    }
}
