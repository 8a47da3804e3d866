import Foundation
import Testing
@testable import MapRenderCore

/// `SpreadFallback`'s passes, each on its own (issue 47: the 410-line `apply` split into named
/// passes on the shared `CollisionIndex` and `ObstacleRaster`).
@Suite struct SpreadFallbackPassTests {
    static let style = Style.default

    /// Points at (lon, lat), each repeated `repeats[k]` times, ids in input order.
    static func points(_ at: [(lon: Double, lat: Double)], repeats: [Int]) -> PointSet {
        var p = PointSet()
        let id = p.properties.addColumn("id")
        var n = 0
        for (k, a) in at.enumerated() {
            for _ in 0..<repeats[k] {
                p.lon.append(a.lon); p.lat.append(a.lat)
                p.properties.appendRow([(id, .number(Double(n)))]); n += 1
            }
        }
        return p
    }

    /// The plan before the fallback: groups with their planned rings, singles as markers.
    static func planned(_ points: PointSet, style: Style = style, viewport v: Viewport) -> (ProjectedPoints, MarkPlan) {
        let data = ProjectedPoints(points: points, style: style)
        let plan = MarkPlanner.plan(viewport: v, data: data, clusters: nil, leaves: { _ in nil },
                                    spread: SpreadOptions(), bubbles: style.cluster)
        return (data, plan)
    }

    static func viewport(lon: Double, lat: Double, zoom: Double, _ w: Double = 400, _ h: Double = 300) -> Viewport {
        Viewport(centerX: WebMercator.x(lon: lon), centerY: WebMercator.y(lat: lat), zoom: zoom, width: w, height: h)
    }

    // MARK: viewFrame

    @Test func theFrameLeavesOutTheLetterbox() throws {
        // Zoom 0 in 600x400: the 512 px world, letterboxed left and right.
        let world = Self.viewport(lon: 0, lat: 0, zoom: 0, 600, 400)
        let f = SpreadFallback.viewFrame(world)
        #expect(abs(f.x - 44) < 1e-9 && abs(f.width - 512) < 1e-9)
        #expect(f.y == 0 && f.height == 400)
        // Issue 47's polar view (--center -82,-150 --zoom 3 in 1024x768): the world ends 70 px
        // above the image's bottom; the frame stops there.
        let polar = Self.viewport(lon: -150, lat: -82, zoom: 3, 1024, 768)
        let w = try #require(WorldFrame.rect(viewport: polar))
        let g = SpreadFallback.viewFrame(polar)
        #expect(g.y == 0 && abs(g.maxY - w.maxY) < 1e-9 && g.maxY < 700 && g.width == 1024)
        // A city view: the whole image.
        let city = SpreadFallback.viewFrame(Self.viewport(lon: 2.35, lat: 48.85, zoom: 10))
        #expect(city.x == 0 && city.y == 0 && city.width == 400 && city.height == 300)
    }

    // MARK: legBoxes

    @Test(arguments: [(0.0, 0.0, 0.0, 0.0), (10, 10, 40, 10), (5, 50, 5, 3), (0, 0, 100, 73.5)])
    func legBoxesCoverTheLeg(x0: Double, y0: Double, x1: Double, y1: Double) {
        let boxes = SpreadFallback.legBoxes(fromX: x0, fromY: y0, toX: x1, toY: y1)
        #expect(boxes.count >= 2)
        func centre(_ r: Rect) -> (x: Double, y: Double) { (r.x + r.width / 2, r.y + r.height / 2) }
        #expect(abs(centre(boxes.first!).x - x0) < 1e-9 && abs(centre(boxes.first!).y - y0) < 1e-9)
        #expect(abs(centre(boxes.last!).x - x1) < 1e-9 && abs(centre(boxes.last!).y - y1) < 1e-9)
        for (a, b) in zip(boxes, boxes.dropFirst()) {
            #expect(hypot(centre(a).x - centre(b).x, centre(a).y - centre(b).y) <= SpreadFallback.legStep + 1e-9)
        }
        #expect(boxes.allSatisfy { $0.width == SpreadFallback.legSquare && $0.height == SpreadFallback.legSquare })
    }

    // MARK: candidates

    @Test func candidatesAreMovedInsideTheFrameOnlyWhenTheirPositionIsInIt() throws {
        let v = Self.viewport(lon: 0, lat: 0, zoom: 6)
        // 8 pins at the right edge of the image (x = 396 px).
        let lonEdge = WebMercator.lon(x: v.world(px: 396, py: 150).x)
        let (data, plan) = Self.planned(Self.points([(lonEdge, 0)], repeats: [8]), viewport: v)
        let g = try #require(plan.spreadGroups.first)
        let frame = SpreadFallback.viewFrame(v)
        var cache: [SpreadFallback.OffsetKey: [(dx: Double, dy: Double)]?] = [:]
        let symbols = g.members.map { data.styles.symbols[Int(data.styles.index[$0])] }
        let c = SpreadFallback.candidates(for: g, symbols: symbols, plannedX: Array(plan.markerX[0..<8]),
                                          plannedY: Array(plan.markerY[0..<8]), frame: frame, cache: &cache)
        #expect(c.map(\.layout) == [.planned, .tightRing, .packedSpiral])
        for cand in c {
            #expect(cand.moved)
            #expect(cand.boxes.allSatisfy { $0.maxX <= 400 + 1e-6 })
            // Legs from the true position to each member's anchor.
            #expect(cand.legs.count >= 2 * 8)
        }
        // The same group with its true position outside the frame is left where it is.
        let outside = Rect(x: 0, y: 0, width: 300, height: 300)
        let d = SpreadFallback.candidates(for: g, symbols: symbols, plannedX: Array(plan.markerX[0..<8]),
                                          plannedY: Array(plan.markerY[0..<8]), frame: outside, cache: &cache)
        #expect(!d[0].moved)
        #expect(d[0].x == Array(plan.markerX[0..<8]))
    }

    // MARK: fixedMarks and roomAlone

    @Test func fixedMarksHoldSinglePinsNotGroupsNorSmallDots() throws {
        let v = Self.viewport(lon: 0, lat: 0, zoom: 6)
        let lonA = WebMercator.lon(x: v.world(px: 100, py: 150).x), lonB = WebMercator.lon(x: v.world(px: 300, py: 150).x)
        let (data, plan) = Self.planned(Self.points([(lonA, 0), (lonB, 0)], repeats: [3, 1]), viewport: v)
        #expect(plan.spreadGroups.count == 1 && plan.markerPoint.count == 4)
        let raster = SpreadFallback.fixedMarks(plan: plan, data: data, viewport: v)
        let pin = SpreadFallback.box(data.styles.symbols[0].extent, 300, 150)
        #expect(!raster.isFree(pin))
        #expect(raster.isFree(Rect(x: 60, y: 100, width: 80, height: 100)))   // the group's ring
        var dots = Self.style
        dots.marker.shape = .circle
        dots.marker.size = 4
        let (dotData, dotPlan) = Self.planned(Self.points([(lonA, 0), (lonB, 0)], repeats: [3, 1]), style: dots, viewport: v)
        #expect(SpreadFallback.fixedMarks(plan: dotPlan, data: dotData, viewport: v).isFree(Rect(x: 295, y: 145, width: 10, height: 10)))
    }

    @Test func roomAloneRefusesALegOverAPinAndAPositionOutsideTheFrame() {
        var raster = ObstacleRaster(width: 200, height: 200)
        raster.add(Rect(x: 95, y: 40, width: 10, height: 20))   // a pin between the centre and a marker
        raster.finish()
        let g = MarkPlan.SpreadGroup(x: 100, y: 100, members: [0, 1], firstMarker: 0)
        func candidate(_ xs: [Double], _ ys: [Double]) -> SpreadFallback.Candidate {
            .init(layout: .planned, x: xs, y: ys, boxes: zip(xs, ys).map { Rect(x: $0 - 4, y: $1 - 4, width: 8, height: 8) },
                  legs: zip(xs, ys).flatMap { SpreadFallback.legBoxes(fromX: 100, fromY: 100, toX: $0, toY: $1) }, moved: false)
        }
        let up = candidate([100, 100], [20, 180])       // markers clear of the pin, a leg through it
        let side = candidate([20, 180], [100, 100])     // clear
        let frame = Rect(x: 0, y: 0, width: 200, height: 200)
        #expect(SpreadFallback.roomAlone([[up, side]], groups: [g], frame: frame, fixed: raster) == [[false, true]])
        // The true position outside the frame: no room for any layout (a leg would leave it).
        let right = Rect(x: 0, y: 0, width: 99, height: 200)
        #expect(SpreadFallback.roomAlone([[side]], groups: [g], frame: right, fixed: raster) == [[false]])
        // A marker box past the frame: no room.
        let far = candidate([20, 199], [100, 100])
        #expect(SpreadFallback.roomAlone([[far]], groups: [g], frame: frame, fixed: raster) == [[false]])
        // A true position on the frame's edge (its first leg box half outside): room.
        let onEdge = MarkPlan.SpreadGroup(x: 0, y: 100, members: [0, 1], firstMarker: 0)
        let fromEdge = SpreadFallback.Candidate(layout: .planned, x: [20, 20], y: [80, 120],
                                                boxes: [Rect(x: 16, y: 76, width: 8, height: 8), Rect(x: 16, y: 116, width: 8, height: 8)],
                                                legs: SpreadFallback.legBoxes(fromX: 0, fromY: 100, toX: 20, toY: 80)
                                                    + SpreadFallback.legBoxes(fromX: 0, fromY: 100, toX: 20, toY: 120), moved: false)
        #expect(SpreadFallback.roomAlone([[fromEdge]], groups: [onEdge], frame: frame, fixed: raster) == [[true]])
    }

    @Test func aSmallStackIsCrowdedOnlyWhenWhollyUnderOtherPins() {
        var raster = ObstacleRaster(width: 100, height: 100)
        raster.add(Rect(x: 10, y: 10, width: 30, height: 30))
        raster.finish()
        #expect(raster.coveredPixels(in: Rect(x: 20, y: 20, width: 10, height: 10)) == 100)
        #expect(raster.coveredPixels(in: Rect(x: 35, y: 20, width: 10, height: 10)) == 50)
        #expect(SpreadFallback.crowded([Rect(x: 20, y: 20, width: 10, height: 10)], fixed: raster))
        #expect(!SpreadFallback.crowded([Rect(x: 35, y: 20, width: 10, height: 10)], fixed: raster))
        #expect(!SpreadFallback.crowded([Rect(x: 20, y: 20, width: 10, height: 10), Rect(x: 60, y: 60, width: 5, height: 5)], fixed: raster))
        // Off the image: nothing to be buried under.
        #expect(!SpreadFallback.crowded([Rect(x: -50, y: -50, width: 10, height: 10)], fixed: raster))
    }

    // MARK: choose

    /// A candidate with one box per member, legs from the group's position.
    func candidate(_ g: MarkPlan.SpreadGroup, _ boxes: [Rect]) -> SpreadFallback.Candidate {
        let xs = boxes.map { $0.x + $0.width / 2 }, ys = boxes.map { $0.y + $0.height / 2 }
        return .init(layout: .planned, x: xs, y: ys, boxes: boxes,
                     legs: zip(xs, ys).flatMap { SpreadFallback.legBoxes(fromX: g.x, fromY: g.y, toX: $0, toY: $1) }, moved: false)
    }

    @Test func chooseTakesTheFirstFreeLayoutInPlanOrder() {
        let v = Self.viewport(lon: 0, lat: 0, zoom: 6)
        let a = MarkPlan.SpreadGroup(x: 100, y: 100, members: [0, 1], firstMarker: 0)
        let b = MarkPlan.SpreadGroup(x: 130, y: 100, members: [2, 3], firstMarker: 2)
        // B's first layout crosses A's; its second is clear.
        let ca = candidate(a, [Rect(x: 100, y: 80, width: 10, height: 10), Rect(x: 100, y: 110, width: 10, height: 10)])
        let cb0 = candidate(b, [Rect(x: 105, y: 85, width: 10, height: 10), Rect(x: 150, y: 100, width: 10, height: 10)])
        let cb1 = candidate(b, [Rect(x: 130, y: 60, width: 10, height: 10), Rect(x: 130, y: 130, width: 10, height: 10)])
        let out = SpreadFallback.choose(groups: [a, b], candidates: [[ca], [cb0, cb1]], alone: [[true], [true, true]],
                                        bubbles: [], viewport: v, style: Self.style.cluster, stacksAsIs: [false, false],
                                        stackBoxes: { _ in [] })
        #expect(out == [.spread(0), .spread(1)])
        // Without room alone for its second, B falls back: a bubble (a badge: two pins), or stacked
        // when it is small dots.
        let pins = SpreadFallback.choose(groups: [a, b], candidates: [[ca], [cb0, cb1]], alone: [[true], [true, false]],
                                         bubbles: [], viewport: v, style: Self.style.cluster, stacksAsIs: [false, false],
                                         stackBoxes: { _ in [] })
        #expect(pins == [.spread(0), .bubble])
        let dots = SpreadFallback.choose(groups: [a, b], candidates: [[ca], [cb0, cb1]], alone: [[true], [true, false]],
                                         bubbles: [], viewport: v, style: Self.style.cluster, stacksAsIs: [false, true],
                                         stackBoxes: { _ in [] })
        #expect(dots == [.spread(0), .stacked])
    }

    @Test func aBubbleBlocksALayoutAndAFallbackCanUndoAnEarlierGroup() {
        let v = Self.viewport(lon: 0, lat: 0, zoom: 6)
        let a = MarkPlan.SpreadGroup(x: 100, y: 100, members: [0, 1], firstMarker: 0)
        let ca = candidate(a, [Rect(x: 100, y: 80, width: 10, height: 10), Rect(x: 100, y: 110, width: 10, height: 10)])
        // A plan bubble over A's layout.
        let blocked = SpreadFallback.choose(groups: [a], candidates: [[ca]], alone: [[true]], bubbles: [(105, 85, 5)],
                                            viewport: v, style: Self.style.cluster, stacksAsIs: [false], stackBoxes: { _ in [] })
        #expect(blocked == [.bubble])
        // B (60 pins, no room at all) becomes a bubble on its position right by A's markers: in
        // the next round A has no room either.
        let b = MarkPlan.SpreadGroup(x: 112, y: 100, members: Array(2..<62), firstMarker: 2)
        let out = SpreadFallback.choose(groups: [a, b], candidates: [[ca], []], alone: [[true], []], bubbles: [],
                                        viewport: v, style: Self.style.cluster, stacksAsIs: [false, false], stackBoxes: { _ in [] })
        #expect(out == [.bubble, .bubble])
    }

    // MARK: rebuild

    @Test func rebuildDropsFallenGroupsAndShowsBadges() throws {
        let v = Self.viewport(lon: 0, lat: 0, zoom: 6)
        let lonA = WebMercator.lon(x: v.world(px: 100, py: 150).x), lonB = WebMercator.lon(x: v.world(px: 300, py: 150).x)
        let (data, before) = Self.planned(Self.points([(lonA, 0), (lonB, 0), (0, 0)], repeats: [3, 7, 1]), viewport: v)
        #expect(before.spreadGroups.count == 2 && before.markerPoint.count == 11)
        let candidates = SpreadFallback.candidates(plan: before, data: data, frame: SpreadFallback.viewFrame(v))
        var plan = before
        let n = SpreadFallback.rebuild(&plan, outcomes: [.bubble, .spread(1)], candidates: candidates, data: data,
                                       viewport: v, style: Self.style.cluster, naming: false, rank: nil, label: nil)
        #expect(n == 1 && plan.spreadFallbacks == 1 && plan.spreadStacked == 0)
        let badge = try #require(plan.bubbles.first)
        #expect(plan.bubbles.count == 1 && badge.count == 3 && badge.badge && badge.clusterID == nil)
        #expect(abs(badge.x - 100) < 1e-6 && abs(badge.y - 150) < 1e-6)
        #expect(abs(badge.radius - SpreadFallback.badgeScale * Self.style.cluster.step(for: 3).radius) < 1e-9)
        // The 7 pins on their tight ring, first in the compacted markers; the single after them.
        #expect(plan.markerPoint.count == 8)
        let g = try #require(plan.spreadGroups.first)
        #expect(plan.spreadGroups.count == 1 && g.layout == .tightRing && g.firstMarker == 0)
        #expect(Array(plan.markerX[0..<7]) == candidates[1][1].x && Array(plan.markerY[0..<7]) == candidates[1][1].y)
        #expect(plan.markerPoint[7] == 10)
        // A group of more than `stackMaximum` gets the style's bubble.
        var big = before
        SpreadFallback.rebuild(&big, outcomes: [.spread(0), .bubble], candidates: candidates, data: data,
                               viewport: v, style: Self.style.cluster, naming: false, rank: nil, label: nil)
        #expect(big.bubbles.map(\.radius) == [Self.style.cluster.step(for: 7).radius] && big.bubbles[0].badge == false)
    }
}
