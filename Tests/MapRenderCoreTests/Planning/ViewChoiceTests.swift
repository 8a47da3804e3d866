import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite struct ViewChoiceTests {
    func data(_ coords: [(Double, Double)]) -> ProjectedPoints {
        var p = PointSet()
        for (lon, lat) in coords { p.lon.append(lon); p.lat.append(lat); p.properties.appendEmptyRow() }
        return ProjectedPoints(points: p, style: .default)
    }

    func options(_ view: ViewSpec, width: Double = 400, height: Double = 300) -> PlanOptions {
        var o = PlanOptions()
        o.view = view; o.width = width; o.height = height
        return o
    }

    /// A refit reuses the points' box: the view is the one fitted from the points themselves.
    @Test(arguments: [ViewSpec.fit(zoom: nil), .fit(zoom: 4), .fitAround(lat: 10, lon: 170)])
    func theBoxMadeOnceFitsAsThePointsDo(view: ViewSpec) {
        var rng = SeededRandom(seed: 3)
        for round in 0..<20 {
            // Some rounds across the antimeridian, some world-spanning, one with no points.
            let n = round == 0 ? 0 : round % 3 == 0 ? 300 : Int.random(in: 1...200, using: &rng)
            let west = Double.random(in: -180..<180, using: &rng)
            let span = round % 3 == 0 ? 360 : Double.random(in: 0..<40, using: &rng)
            let points = data((0..<n).map { _ in
                var lon = west + Double.random(in: 0...span, using: &rng)
                if lon >= 180 { lon -= 360 }
                return (lon, Double.random(in: -70...70, using: &rng))
            })
            let o = options(view)
            let box = ViewFitter.DataBox(xs: points.x, ys: points.y)
            #expect((box == nil) == (n == 0))
            for extra in [EdgeInsets.zero, EdgeInsets(top: 30, right: 0, bottom: 12, left: 55)] {
                // The fit as it was made from the points before the box was kept.
                let padding = EdgeInsets(all: o.padding) + extra, extent = points.styles.extent
                var expected: Viewport
                if let xr = ViewFitter.shortestXExtent(points.x), let ylo = points.y.min(), let yhi = points.y.max() {
                    let spans = xr.max - xr.min > ViewFitter.worldSpanning
                    let (x0, x1) = spans ? (0.0, 1.0) : (xr.min, xr.max)
                    if case .fitAround(let lat, let lon) = view {
                        expected = ViewFitter.fit(minX: xr.min, minY: ylo, maxX: xr.max, maxY: yhi,
                                                  around: (WebMercator.x(lon: lon), WebMercator.y(lat: lat)), width: o.width,
                                                  height: o.height, extent: extent, padding: padding, maxZoom: o.maxZoom)
                    } else {
                        expected = ViewFitter.fit(minX: x0, minY: ylo, maxX: x1, maxY: yhi, width: o.width, height: o.height,
                                                  extent: extent, padding: padding, maxZoom: o.maxZoom)
                    }
                } else {
                    expected = ViewFitter.world(width: o.width, height: o.height)
                    if case .fitAround(let lat, let lon) = view {
                        expected = Viewport(centerX: WebMercator.x(lon: lon), centerY: WebMercator.y(lat: lat), zoom: expected.zoom,
                                            width: o.width, height: o.height)
                    }
                }
                if case .fit(let zoom?) = view { expected.zoom = zoom }
                #expect(ViewChoice.viewport(o, data: points, box: box, extraPadding: extra) == expected, "round \(round)")
                #expect(ViewChoice.viewport(o, data: points, extraPadding: extra) == expected, "round \(round)")
            }
        }
    }

    @Test func centerAndZoomPutThePointInTheMiddle() {
        let v = ViewChoice.viewport(options(.center(lat: 48.85, lon: 2.35, zoom: 7)), data: data([]))
        #expect(v.zoom == 7)
        let p = v.pixel(x: WebMercator.x(lon: 2.35), y: WebMercator.y(lat: 48.85))
        #expect(abs(p.x - 200) < 1e-9 && abs(p.y - 150) < 1e-9)
    }

    @Test func bboxFillsTheViewAlongOneAxisAndShowsAllOfIt() {
        let box = GeoBounds(west: -10, south: 35, east: 30, north: 60)
        let v = ViewChoice.viewport(options(.bbox(box)), data: data([(100, 0)]))
        let b = v.bounds
        // Every corner is inside the view, and the box touches the view's edges on one axis.
        #expect(b.west <= -10 + 1e-9 && b.east >= 30 - 1e-9 && b.south <= 35 + 1e-9 && b.north >= 60 - 1e-9)
        let touchesX = abs(b.west + 10) < 1e-6 && abs(b.east - 30) < 1e-6
        let touchesY = abs(b.south - 35) < 1e-6 && abs(b.north - 60) < 1e-6
        #expect(touchesX || touchesY)
    }

    @Test func fitKeepsEveryMarkerInsideThePadding() {
        let d = data([(-3, 40), (5, 52), (12, 45), (0, 38)])
        var o = options(.fit(zoom: nil))
        o.padding = 20
        let v = ViewChoice.viewport(o, data: d)
        let e = d.styles.extent
        for i in 0..<d.x.count {
            let p = v.pixel(x: d.x[i], y: d.y[i])
            #expect(p.x - e.left >= 20 - 1e-6 && p.x + e.right <= 380 + 1e-6)
            #expect(p.y - e.top >= 20 - 1e-6 && p.y + e.bottom <= 280 + 1e-6)
        }
    }

    @Test func fitWithAZoomKeepsTheFittedCentre() {
        let d = data([(-3, 40), (12, 45)])
        let fitted = ViewChoice.viewport(options(.fit(zoom: nil)), data: d)
        let fixed = ViewChoice.viewport(options(.fit(zoom: 2.5)), data: d)
        #expect(fixed.zoom == 2.5)
        #expect(fixed.centerX == fitted.centerX && fixed.centerY == fitted.centerY)
    }

    @Test func extraPaddingShrinksTheFit() {
        let d = data([(-3, 40), (12, 45)])
        let plain = ViewChoice.viewport(options(.fit(zoom: nil)), data: d)
        let roomier = ViewChoice.viewport(options(.fit(zoom: nil)), data: d, extraPadding: EdgeInsets(all: 30))
        #expect(roomier.zoom < plain.zoom)
    }

    /// `--center` alone: the centre is exact and every marker stays inside the padding.
    @Test func centerAloneFitsTheDataAroundIt() {
        let d = data([(-3, 40), (5, 52), (12, 45), (0, 38)])
        var o = options(.fitAround(lat: 50, lon: 10))
        o.padding = 20
        let v = ViewChoice.viewport(o, data: d)
        #expect(abs(v.centerLongitude - 10) < 1e-9 && abs(v.centerLatitude - 50) < 1e-9)
        // Room for the marker on every side: the larger of its opposite extents, so the centre stays exact.
        let e = d.styles.extent
        let sideX = max(e.left, e.right), sideY = max(e.top, e.bottom)
        var slack = Double.infinity
        for i in 0..<d.x.count {
            let p = v.pixel(x: d.x[i], y: d.y[i])
            slack = min(slack, p.x - sideX - 20, 380 - p.x - sideX, p.y - sideY - 20, 280 - p.y - sideY)
        }
        #expect(slack >= -1e-6)   // inside the padding
        #expect(slack < 1e-6)     // at the largest such zoom
        #expect(ViewChoice.viewport(options(.fit(zoom: nil)), data: d).zoom > v.zoom)
    }

    @Test func noPointsShowTheWholeWorld() {
        let v = ViewChoice.viewport(options(.fit(zoom: nil), width: 1024, height: 512), data: data([]))
        #expect(v.bounds.west == -180 && v.bounds.east == 180)
    }
}
