import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite struct ViewClustersTests {
    func randomPoints(_ n: Int, seed: UInt64, lon: ClosedRange<Double>, lat: ClosedRange<Double>) -> PointSet {
        var rng = SeededRandom(seed: seed)
        var p = PointSet()
        for _ in 0..<n {
            p.lon.append(Double.random(in: lon, using: &rng)); p.lat.append(Double.random(in: lat, using: &rng))
            p.properties.appendEmptyRow()
        }
        return p
    }

    @Test func offWhenClusteringIsOffOrAboveTheClusterMaxZoom() {
        let p = randomPoints(50, seed: 1, lon: -10...10, lat: -10...10)
        let v = ViewFitter.center(lat: 0, lon: 0, zoom: 3, width: 300, height: 300)
        #expect(ViewClusters.make(points: p, clustering: nil, aggregates: [], viewport: v) == nil)
        #expect(ViewClusters.make(points: PointSet(), clustering: ClusterOptions(), aggregates: [], viewport: v) == nil)
        let high = ViewFitter.center(lat: 0, lon: 0, zoom: 6.5, width: 300, height: 300)
        #expect(ViewClusters.make(points: p, clustering: ClusterOptions(maxZoom: 5), aggregates: [], viewport: high) == nil)
        #expect(ViewClusters.make(points: p, clustering: ClusterOptions(maxZoom: 6), aggregates: [], viewport: high) != nil)
    }

    /// Every point inside the view is shown exactly once: alone, or as a member of one cluster.
    @Test(arguments: [(0.0, 2.3), (179.0, 4.0), (-179.5, 5.7)])
    func everyPointInTheViewIsShownOnce(lon: Double, zoom: Double) throws {
        let p = randomPoints(3000, seed: UInt64(zoom * 10), lon: -180...180, lat: -60...60)
        let v = ViewFitter.center(lat: 10, lon: lon, zoom: zoom, width: 640, height: 480)
        let c = try #require(ViewClusters.make(points: p, clustering: ClusterOptions(radius: 50), aggregates: [], viewport: v))
        var shown = [Int](repeating: 0, count: p.count)
        for item in c.items {
            if let i = item.pointIndex { shown[i] += 1; continue }
            for m in try #require(c.index.members(of: item.id)) { shown[m] += 1 }
        }
        for i in 0..<p.count {
            let px = v.pixel(x: WebMercator.x(lon: p.lon[i]), y: WebMercator.y(lat: p.lat[i]))
            if px.x >= 0, px.x <= v.width, px.y >= 0, px.y <= v.height {
                #expect(shown[i] == 1, "point \(i) at \(p.lon[i]), \(p.lat[i]) shown \(shown[i]) times")
            } else {
                #expect(shown[i] <= 1)
            }
        }
    }

    /// A refit view at the same floored zoom queries the index already built; at another zoom a
    /// new one is built: either way the items are those of a fresh index for that view.
    @Test func anIndexIsReusedOnlyForItsOwnZoom() throws {
        let p = randomPoints(3000, seed: 11, lon: -40...40, lat: -30...30)
        let opts = ClusterOptions(radius: 40)
        let first = ViewFitter.center(lat: 0, lon: 0, zoom: 3.7, width: 400, height: 300)
        let built = try #require(ViewClusters.make(points: p, clustering: opts, aggregates: [], viewport: first)).index
        #expect(built.lowestBuiltZoom == 3)
        for zoom in [3.2, 2.6, 1.1] {
            let v = ViewFitter.center(lat: 0, lon: 0, zoom: zoom, width: 400, height: 300)
            let reused = try #require(ViewClusters.make(points: p, clustering: opts, aggregates: [], viewport: v, reusing: built))
            let fresh = try #require(ViewClusters.make(points: p, clustering: opts, aggregates: [], viewport: v))
            #expect(reused.index.lowestBuiltZoom == Int(zoom))
            #expect(reused.items.map(\.id) == fresh.items.map(\.id))
            #expect(reused.items.map(\.count) == fresh.items.map(\.count))
        }
    }

    /// The query box is the view's bounds widened by the radius plus a bubble (supercluster's getClusters).
    @Test func queriesTheViewWidenedByRadiusAndBubble() throws {
        let p = randomPoints(2000, seed: 7, lon: -30...30, lat: -30...30)
        let v = ViewFitter.center(lat: 0, lon: 0, zoom: 4, width: 300, height: 200)
        let opts = ClusterOptions(radius: 30)
        let c = try #require(ViewClusters.make(points: p, clustering: opts, aggregates: [], viewport: v))
        let index = ClusterIndex(points: p, options: opts)
        let expected = index.clusters(in: v.bounds(margin: 30 + ViewClusters.bubbleMargin), zoom: 4)
        #expect(c.items.map(\.id) == expected.map(\.id))
        #expect(c.items.count > index.clusters(in: v.bounds, zoom: 4).count)
    }

    @Test func boundsWithAMarginReachTheWholeWorldAtLowZoom() {
        let v = ViewFitter.center(lat: 0, lon: 170, zoom: 0.5, width: 600, height: 400)
        let b = v.bounds(margin: 80)
        #expect(b.west == -180 && b.east == 180)
        #expect(v.bounds(margin: 0) == v.bounds)
        let across = ViewFitter.center(lat: 0, lon: 179, zoom: 5, width: 600, height: 400).bounds(margin: 10)
        #expect(across.crossesAntimeridian)
    }
}
