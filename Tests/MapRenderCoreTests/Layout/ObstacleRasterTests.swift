import Foundation
import Testing
@testable import MapRenderCore

@Suite struct LayoutObstacleRasterTests {
    @Test func agreesWithABruteForceScanConservatively() {
        var rng = SystemRandomNumberGenerator()
        var raster = ObstacleRaster(width: 300, height: 200)
        var boxes: [Rect] = []
        for _ in 0..<400 {
            let r = Rect(x: Double.random(in: -20...300, using: &rng), y: Double.random(in: -20...200, using: &rng),
                         width: Double.random(in: 0.5...25, using: &rng), height: Double.random(in: 0.5...25, using: &rng))
            boxes.append(r); raster.add(r)
        }
        raster.finish()
        for _ in 0..<5000 {
            let q = Rect(x: Double.random(in: 0...290, using: &rng), y: Double.random(in: 0...190, using: &rng),
                         width: Double.random(in: 1...30, using: &rng), height: Double.random(in: 1...15, using: &rng))
            let hit = boxes.contains { $0.intersects(q) }
            // Never free where a box overlaps (the raster may refuse a little more: whole pixels).
            if hit { #expect(!raster.isFree(q)) }
            // Free when no box comes within a pixel.
            let grown = Rect(x: q.x - 1, y: q.y - 1, width: q.width + 2, height: q.height + 2)
            if !boxes.contains(where: { $0.intersects(grown) }) { #expect(raster.isFree(q)) }
        }
    }

    @Test func emptyRasterIsFree() {
        var r = ObstacleRaster(width: 10, height: 10)
        r.finish()
        #expect(r.isFree(Rect(x: 0, y: 0, width: 10, height: 10)))
        var s = ObstacleRaster(width: 10, height: 10)
        s.add(Rect(x: 4.2, y: 4.2, width: 0.5, height: 0.5))
        s.finish()
        #expect(!s.isFree(Rect(x: 4, y: 4, width: 1, height: 1)))
        #expect(s.isFree(Rect(x: 5, y: 5, width: 3, height: 3)))
        #expect(s.isFree(Rect(x: 0, y: 0, width: 4, height: 10)))
    }
}
