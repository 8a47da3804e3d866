import Foundation
import Testing
@testable import MapRenderCore

@Suite struct ViewFitterTests {
    func xs(_ lons: [Double]) -> [Double] { lons.map { WebMercator.x(lon: $0) } }
    func ys(_ lats: [Double]) -> [Double] { lats.map { WebMercator.y(lat: $0) } }

    @Test func shortWayAcrossTheAntimeridian() throws {
        // Fiji and Tonga: 177°E to 175°W is 7.4° wide the short way, not 352.6°.
        let r = try #require(ViewFitter.shortestXExtent(xs([177.4, 178.4, -178.1, -175.2])))
        #expect(abs((r.max - r.min) * 360 - 7.4) < 1e-3)
        #expect(r.max > 1)  // east edge beyond 180°
        let v = ViewFitter.fit(xs: xs([177.4, 178.4, -178.1, -175.2]), ys: ys([-18.1, -17.8, -21.1, -21.2]),
                               width: 800, height: 600, extent: .zero, padding: EdgeInsets(all: 20), maxZoom: 16)
        #expect(v.zoom > 4)  // a close view, not the whole world
        let b = v.bounds
        #expect(b.crossesAntimeridian)
        // Every point is inside the image.
        for (lon, lat) in zip([177.4, 178.4, -178.1, -175.2], [-18.1, -17.8, -21.1, -21.2]) {
            let p = v.pixel(x: WebMercator.x(lon: lon), y: WebMercator.y(lat: lat))
            #expect(p.x >= 20 - 1e-6 && p.x <= 780 + 1e-6 && p.y >= 20 - 1e-6 && p.y <= 580 + 1e-6)
        }
    }

    @Test func ordinaryDataDoesNotWrap() throws {
        let r = try #require(ViewFitter.shortestXExtent(xs([-10, 20, 5])))
        #expect(abs(r.min - WebMercator.x(lon: -10)) < 1e-9)
        #expect(abs(r.max - WebMercator.x(lon: 20)) < 1e-9)
    }

    @Test func singlePointGetsASensibleZoom() {
        let v = ViewFitter.fit(xs: xs([13.4]), ys: ys([52.5]), width: 400, height: 300,
                               extent: .zero, padding: EdgeInsets(all: 10), maxZoom: 16)
        #expect(v.zoom == ViewFitter.defaultSinglePointZoom)
        let p = v.pixel(x: WebMercator.x(lon: 13.4), y: WebMercator.y(lat: 52.5))
        #expect(abs(p.x - 200) < 1e-6 && abs(p.y - 150) < 1e-6)
        let capped = ViewFitter.fit(xs: xs([13.4]), ys: ys([52.5]), width: 400, height: 300,
                                    extent: .zero, padding: .zero, maxZoom: 5)
        #expect(capped.zoom == 5)
    }

    @Test func fitLeavesRoomForPinsAbovePoints() {
        let lons = [-5.0, 10, 2], lats = [40.0, 55, 47]
        let ext = EdgeInsets(top: 30, right: 10, bottom: 1, left: 10)
        let v = ViewFitter.fit(xs: xs(lons), ys: ys(lats), width: 600, height: 400,
                               extent: ext, padding: EdgeInsets(all: 8), maxZoom: 16)
        var minTop = Double.infinity, maxBottom = -Double.infinity
        for (lon, lat) in zip(lons, lats) {
            let p = v.pixel(x: WebMercator.x(lon: lon), y: WebMercator.y(lat: lat))
            minTop = min(minTop, p.y - 30)
            maxBottom = max(maxBottom, p.y + 1)
            #expect(p.x - 10 >= 8 - 1e-6 && p.x + 10 <= 592 + 1e-6)
        }
        #expect(minTop >= 8 - 1e-6)
        #expect(maxBottom <= 392 + 1e-6)
        // Tight on the limiting axis.
        #expect(abs(minTop - 8) < 1e-6 || abs(maxBottom - 392) < 1e-6)
    }

    @Test func bboxAcrossTheAntimeridian() {
        let v = ViewFitter.fit(bounds: GeoBounds(west: 170, south: -25, east: -170, north: -10), width: 800, height: 600)
        let b = v.bounds
        #expect(b.crossesAntimeridian)
        #expect(b.west <= 170 && b.west > 160)
        #expect(b.east >= -170 && b.east < -160)
        #expect(abs(v.centerLongitude - 180) < 1e-6 || abs(v.centerLongitude + 180) < 1e-6)
    }

    @Test func centerAndZoom() {
        let v = ViewFitter.center(lat: 48.8566, lon: 2.3522, zoom: 11, width: 1024, height: 768)
        #expect(abs(v.worldSize - 512 * 2048) < 1e-6)
        let p = v.pixel(x: WebMercator.x(lon: 2.3522), y: WebMercator.y(lat: 48.8566))
        #expect(abs(p.x - 512) < 1e-9 && abs(p.y - 384) < 1e-9)
    }

    @Test func parsesBBox() {
        #expect(GeoBounds.parse("1,2,3,4") == GeoBounds(west: 1, south: 2, east: 3, north: 4))
        #expect(GeoBounds.parse("1,4,3,2") == nil)   // south above north
        #expect(GeoBounds.parse("1,2,3") == nil)
        #expect(GeoBounds.parse("a,2,3,4") == nil)
        #expect(GeoBounds.parse("-181,2,3,4") == nil)
    }
}
