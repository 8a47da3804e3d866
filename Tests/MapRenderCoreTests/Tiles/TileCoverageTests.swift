import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite struct TileCoverageTests {
    @Test func tileZoomIsCeilPlusOneFor256PxTiles() {
        #expect(TileCoverage.tileZoom(viewZoom: 3, tileSize: 256, scale: 1) == 4)
        #expect(TileCoverage.tileZoom(viewZoom: 3.2, tileSize: 256, scale: 1) == 5)
        #expect(TileCoverage.tileZoom(viewZoom: 3.2, tileSize: 512, scale: 1) == 4)
        // --scale 2: the next zoom without @2x tiles, the same zoom with them.
        #expect(TileCoverage.tileZoom(viewZoom: 3.2, tileSize: 256, scale: 2) == 6)
        #expect(TileCoverage.tileZoom(viewZoom: 3.2, tileSize: 256, scale: 2, pixelRatio: 2) == 5)
    }

    @Test func tilesTileTheImageWithoutGapsOrOverlaps() {
        // Property: for random views, the placements of each row share edges exactly and cover the image.
        var rng = SeededRandom(seed: 16)
        for _ in 0..<200 {
            let v = Viewport(centerX: Double.random(in: 0..<1, using: &rng), centerY: Double.random(in: 0.3..<0.7, using: &rng),
                             zoom: Double.random(in: 1...12, using: &rng), width: 640, height: 480)
            let scale = [1.0, 2.0][Int.random(in: 0...1, using: &rng)]
            let z = TileCoverage.tileZoom(viewZoom: v.zoom, tileSize: 256, scale: scale)
            let c = TileCoverage.cover(v, zoom: z, scale: scale)
            #expect(c.zoom == z)
            let rows = Dictionary(grouping: c.placements, by: { $0.rect.y })
            for (_, row) in rows {
                let sorted = row.sorted { $0.rect.x < $1.rect.x }
                #expect(sorted.first!.rect.x <= 0)
                #expect(sorted.last!.rect.maxX >= 640)
                for (a, b) in zip(sorted, sorted.dropFirst()) {
                    #expect(a.rect.maxX == b.rect.x)
                    #expect(b.tile.x == (a.tile.x + 1) % (1 << z))
                }
                // Edges on device pixels.
                for p in sorted { #expect((p.rect.x * scale).rounded() == p.rect.x * scale) }
            }
            // A tile is about 256 px / 2^(z - zoom - 1) wide.
            let expected = 512 * pow(2, v.zoom) / Double(1 << z)
            #expect(abs(c.placements[0].rect.width - expected) <= 1)
        }
    }

    @Test func antimeridianViewWrapsColumns() {
        // Centred on 180°: columns east of it are the western tiles 0, 1, ... of the next world copy.
        let v = ViewFitter.center(lat: 0, lon: 180, zoom: 2, width: 1024, height: 512)
        let c = TileCoverage.cover(v, zoom: 3)
        let row = c.placements.filter { $0.tile.y == 4 }.sorted { $0.rect.x < $1.rect.x }
        #expect(row.map(\.tile.x) == [6, 7, 0, 1])
        #expect(row[2].rect.x == 512)  // tile 0 starts at 180°, the image's centre
    }

    @Test func worldCopiesAtLowZoomAndRowsOutsideTheWorldLeftOut() {
        let v = ViewFitter.center(lat: 0, lon: 0, zoom: 0, width: 1200, height: 800)
        let c = TileCoverage.cover(v, zoom: 1)
        #expect(c.placements.allSatisfy { (0..<2).contains($0.tile.y) })
        #expect(c.placements.count == 2 * 6)  // three copies of a 2-column world across 1200 px (2 partial)
        #expect(Set(c.placements.map(\.tile)).count == 4)
    }

    @Test func overzoomStretchesTheLastLevel() {
        let v = ViewFitter.center(lat: 51.5, lon: -0.1, zoom: 6, width: 512, height: 512)
        let c = TileCoverage.cover(v, zoom: 7, maxZoom: 5)
        #expect(c.zoom == 5)
        #expect(abs(c.placements[0].rect.width - 1024) <= 1)  // a 256-px tile drawn 1024 px wide
    }

    @Test func integerZoomSnapsZoomAndPixelGrid() {
        let v = ViewFitter.center(lat: 48.85, lon: 2.35, zoom: 11.7, width: 801, height: 600)
        let s = TileCoverage.integerZoom(v, scale: 1)
        #expect(s.zoom == 11)
        let c = TileCoverage.cover(s, zoom: 12)
        for p in c.placements {
            #expect(p.rect.width == 256)
        }
        // Unsnapped tile edges (before rounding) already fall on whole pixels.
        let ws = s.worldSize
        let left = (Double(c.placements[0].tile.x) / 4096 - s.centerX) * ws + 400.5
        #expect(abs(left - left.rounded()) < 1e-6)
    }
}
