import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// A layer that keeps its features (`StyleLayer.keepsFeatures`, an animation's trail) lists the
/// feature of each path it draws (`ShapeBatch.pathFeatures`): a path per copy of the world the
/// view shows, none for a feature off the view; other layers list nothing.
@Suite struct ShapeLayoutFeatureTests {
    @Test func eachPathNamesItsFeature() throws {
        var shapes = ShapeSet()
        // Feature 0 near 180° (shown twice: the view is 1.25 worlds wide), 1 near 0° (once),
        // 2 off the view (north of 85°: nothing), 3 near 180° again.
        shapes.add(kind: .line, rings: [[170, 10, -170, 20]], feature: 0, row: 0)
        shapes.add(kind: .line, rings: [[0, 0, 10, 5]], feature: 1, row: 1)
        shapes.add(kind: .line, rings: [[0, 86, 10, 89]], feature: 2, row: 2)
        shapes.add(kind: .line, rings: [[160, -10, 175, -20]], feature: 3, row: 3)
        for _ in 0..<4 { shapes.properties.appendEmptyRow() }
        let v = Viewport(centerX: 0.5, centerY: 0.5, zoom: 0, width: 640, height: 300)
        var layer = StyleLayer(id: "trail", type: .line)
        layer.lineWidth = StyleExpression(constant: .number(3))
        #expect(ShapeLayout.batches(for: shapes, layer: layer, viewport: v).allSatisfy { $0.pathFeatures == nil })
        layer.keepsFeatures = true
        let batches = ShapeLayout.batches(for: shapes, layer: layer, viewport: v)
        var features: [Int] = []
        for b in batches {
            let f = try #require(b.pathFeatures)
            #expect(f.count == b.pathCount)
            features += f
        }
        #expect(features == [0, 0, 1, 3, 3])
        // The two copies of feature 0 are a world (512 px) apart.
        let b = batches[0]
        let x0 = b.coords[2 * b.ringStart[b.pathRingStart[0]]], x1 = b.coords[2 * b.ringStart[b.pathRingStart[1]]]
        #expect(abs(abs(x1 - x0) - 512) < 1e-6)
    }
}
