import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Fallback bubbles stay readable: a group with no room is drawn stacked, not as a bubble, when its
/// markers are small dots or when its bubble would sit on another bubble (issue 15).
@Suite struct SpreadFallbackTests {
    /// `n` points, the kth placed by `place(k, rng)`, every tenth one an exact duplicate of an
    /// earlier point; ids 0..<n.
    static func withDuplicates(_ n: Int, seed: UInt64,
                               place: (Int, inout SeededRandom) -> (lon: Double, lat: Double)) -> PointSet {
        var rng = SeededRandom(seed: seed)
        var p = PointSet()
        let id = p.properties.addColumn("id")
        for k in 0..<n {
            if k > 0 && k % 10 == 0 {
                let j = Int.random(in: 0..<k, using: &rng)
                p.lon.append(p.lon[j]); p.lat.append(p.lat[j])
            } else {
                let at = place(k, &rng)
                p.lon.append(at.lon); p.lat.append(at.lat)
            }
            p.properties.appendRow([(id, .number(Double(k)))])
        }
        return p
    }

    /// `n` points in a small box (a carpet of markers at any zoom that shows them all), every
    /// tenth one an exact duplicate of an earlier point.
    func carpet(_ n: Int, seed: UInt64) -> PointSet {
        Self.withDuplicates(n, seed: seed) { _, rng in
            (Double.random(in: 2...3, using: &rng), Double.random(in: 48...49, using: &rng))
        }
    }

    func plan(_ points: PointSet, style: Style) -> MapPlan {
        var o = PlanOptions()
        o.width = 500; o.height = 400
        o.clustering = nil
        return MapPlanner.plan(points: points, style: style, options: o)
    }

    /// 3000 pins with 300 duplicates: the pairs find no room among the pins; their bubbles would
    /// pile up, so only bubbles clear of each other are drawn and the rest are stacked.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func fallbackBubblesDoNotPileUp(seed: UInt64) {
        let points = carpet(3000, seed: seed)
        let p = plan(points, style: .default)
        let m = p.marks
        #expect(m.spreadFallbacks > 0 && m.spreadStacked > 0)
        #expect(m.bubbles.count == m.spreadFallbacks)
        let r = m.bubbles.map { $0.radius + Style.default.cluster.strokeWidth / 2 }
        // Bubbles of small groups (the stacked kind) never sit on each other; larger groups keep
        // their bubble wherever they are.
        let small = m.bubbles.indices.filter { m.bubbles[$0].count <= SpreadFallback.stackMaximum }
        #expect(small.count > m.bubbles.count / 2)
        for i in small {
            for j in small where j > i {
                let d = hypot(m.bubbles[i].x - m.bubbles[j].x, m.bubbles[i].y - m.bubbles[j].y)
                #expect(d >= r[i] + r[j] - SpreadFallback.bubbleOverlap * min(r[i], r[j]) - 1e-9)
            }
        }
        // Every point is drawn once: as a marker (alone, spread or stacked) or inside a bubble.
        #expect(m.markerPoint.count + m.pointsInBubbles == points.count)
        #expect(Set(m.markerPoint).count == m.markerPoint.count)
        // A stacked member sits at its own true position.
        let spread = Set(m.spreadGroups.flatMap(\.members))
        let counts = Dictionary(m.markerPoint.map { (PairKey(points.lon[$0], points.lat[$0]), 1) }, uniquingKeysWith: +)
        var stackedSeen = 0
        for (k, i) in m.markerPoint.enumerated() where !spread.contains(i) && counts[PairKey(points.lon[i], points.lat[i])]! > 1 {
            let t = p.viewport.pixel(x: p.data.x[i], y: p.data.y[i])
            #expect(abs(m.markerX[k] - t.x) < 1e-9 && abs(m.markerY[k] - t.y) < 1e-9)
            stackedSeen += 1
        }
        #expect(stackedSeen >= 2 * m.spreadStacked)
    }

    /// The same data as 4 px dots: no group becomes a bubble (it is spread where there is room,
    /// stacked elsewhere).
    @Test func dotGroupsNeverBecomeBubbles() {
        var style = Style.default
        style.marker.shape = .circle
        style.marker.size = 4
        let m = plan(carpet(3000, seed: 1), style: style).marks
        #expect(m.spreadFallbacks == 0 && m.bubbles.isEmpty)
        #expect(m.spreadStacked > 0)
        #expect(m.markerPoint.count == 3000)
    }

    struct PairKey: Hashable {
        var lon: UInt64, lat: UInt64
        init(_ lon: Double, _ lat: Double) { self.lon = lon.bitPattern; self.lat = lat.bitPattern }
    }
}

/// The fallback's candidates, their room among the markers and the markers' buckets made in
/// parts on both cores (`SpreadFallback.partsFrom`, `markerPartsFrom`, `markersPerPartCell`)
/// give the plan one thread gives: the same markers at the same places, the same groups, layouts and bubbles.
@Suite struct SpreadFallbackPartsTests {
    /// `n` points, a third in a dense clump and the rest spread wide, every tenth one an exact
    /// duplicate of an earlier point (groups with room, and groups without).
    func points(_ n: Int, seed: UInt64) -> PointSet {
        SpreadFallbackTests.withDuplicates(n, seed: seed) { k, rng in
            k % 3 == 0 ? (Double.random(in: 2...2.5, using: &rng), Double.random(in: 48...48.4, using: &rng))
                : (Double.random(in: -30...40, using: &rng), Double.random(in: 20...65, using: &rng))
        }
    }

    @Test(arguments: [(UInt64(1), 300), (2, 1000), (3, 2000), (4, 6000)])
    func partsPlanAsOneThread(seed: UInt64, n: Int) {
        let points = points(n, seed: seed)
        func plan() -> MarkPlan {
            var o = PlanOptions()
            o.width = 1600; o.height = 1200
            o.clustering = nil
            return MapPlanner.plan(points: points, style: .default, options: o).marks
        }
        let one = SpreadFallback.$partsFrom.withValue(.max) { SpreadFallback.$markerPartsFrom.withValue(.max) { plan() } }
        let parts = SpreadFallback.$partsFrom.withValue(1) {
            SpreadFallback.$markerPartsFrom.withValue(1) { SpreadFallback.$markersPerPartCell.withValue(0) { plan() } }
        }
        // Groups kept (with more than one layout among them), fallen back to bubbles and stacked.
        #expect(one.spreadGroups.count > 0 && one.spreadFallbacks > 0 && one.spreadStacked > 0)
        #expect(Set(one.spreadGroups.map(\.layout)).count > 1)
        #expect(one.markerPoint == parts.markerPoint)
        #expect(one.markerX == parts.markerX && one.markerY == parts.markerY)
        #expect(one.spreadGroups == parts.spreadGroups)
        #expect(one.bubbles == parts.bubbles)
        #expect(one.spreadFallbacks == parts.spreadFallbacks && one.spreadStacked == parts.spreadStacked)
    }
}
