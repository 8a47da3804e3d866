import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// A stack with no room shows its count: a bubble, or a small badge for 2 to 4 pins, never pins
/// stacked to look like one (issue 47, which replaced issue 15's stacking of small groups); only
/// small dots stay stacked.
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

    /// Pins with every tenth an exact duplicate, in a box: each pair or triple that finds no room
    /// is a badge with its count on its true position, unless it lies in a carpet of pins (its box
    /// wholly under other pins), where it stays stacked: every stacked one has pins over it. In a
    /// carpet of 3000 pins there are both.
    @Test(arguments: [(1, 100), (2, 100), (1, 3000), (3, 3000)] as [(UInt64, Int)])
    func smallStacksWithoutRoomShowTheirCount(seed: UInt64, n: Int) {
        let points = carpet(n, seed: seed)
        let p = plan(points, style: .default)
        let m = p.marks
        #expect(m.spreadFallbacks > 0 || n <= 100)
        #expect(m.bubbles.count == m.spreadFallbacks)
        let style = Style.default.cluster
        for b in m.bubbles {
            #expect(b.clusterID == nil)
            if b.count <= SpreadFallback.stackMaximum {
                #expect(b.badge && b.showsText && b.text == "\(b.count)")
                #expect(abs(b.radius - SpreadFallback.badgeScale * style.step(for: b.count).radius) < 1e-9)
            }
        }
        // Every point is drawn once: as a marker (alone, spread or stacked) or inside a bubble.
        #expect(m.markerPoint.count + m.pointsInBubbles == points.count)
        #expect(Set(m.markerPoint).count == m.markerPoint.count)
        // Stacked pins (markers of one coordinate, not spread) only in the carpet, and each with
        // at least two other pins' boxes over its own.
        let spread = Set(m.spreadGroups.flatMap(\.members))
        let counts = Dictionary(m.markerPoint.map { (PairKey(points.lon[$0], points.lat[$0]), 1) }, uniquingKeysWith: +)
        let sym = p.data.styles.symbols[0]
        func box(_ k: Int) -> Rect { SpreadFallback.box(sym.extent, m.markerX[k], m.markerY[k]) }
        var stacked = 0
        for (k, i) in m.markerPoint.enumerated() where !spread.contains(i) && counts[PairKey(points.lon[i], points.lat[i])]! > 1 {
            stacked += 1
            let over = m.markerPoint.indices.filter { j in
                let q = m.markerPoint[j]
                return PairKey(points.lon[q], points.lat[q]) != PairKey(points.lon[i], points.lat[i]) && box(j).intersects(box(k))
            }.count
            #expect(over >= 2, "a stacked pin with \(over) pins over it")
        }
        #expect(stacked >= 2 * m.spreadStacked)
        // The carpet has both: badges where a pair's pins show, stacks where they are buried.
        if n >= 3000 { #expect(m.spreadStacked > 0 && m.bubbles.contains { $0.badge }) }
    }

    /// The same data as 4 px dots (groups of 2 to 5): no group of up to 4 dots becomes a bubble
    /// (it is spread where there is room, stacked elsewhere: on a dot map overlapping dots are the
    /// density); a larger one with no room shows its count.
    @Test func smallDotGroupsNeverBecomeBubbles() {
        var style = Style.default
        style.marker.shape = .circle
        style.marker.size = 4
        let m = plan(carpet(3000, seed: 1), style: style).marks
        #expect(m.bubbles.allSatisfy { $0.count > SpreadFallback.stackMaximum })
        #expect(m.spreadStacked > 0)
        #expect(m.markerPoint.count + m.pointsInBubbles == 3000)
    }

    struct PairKey: Hashable {
        var lon: UInt64, lat: UInt64
        init(_ lon: Double, _ lat: Double) { self.lon = lon.bitPattern; self.lat = lat.bitPattern }
    }
}

/// The fallback's candidates and their room alone made in parts on both cores
/// (`SpreadFallback.partsFrom`) give the plan one thread gives: the same markers at the same places, the same groups, layouts and bubbles.
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
        let one = SpreadFallback.$partsFrom.withValue(.max) { plan() }
        let parts = SpreadFallback.$partsFrom.withValue(1) { plan() }
        // Groups kept and fallen back to bubbles.
        #expect(one.spreadGroups.count > 0 && one.spreadFallbacks > 0)
        #expect(one.markerPoint == parts.markerPoint)
        #expect(one.markerX == parts.markerX && one.markerY == parts.markerY)
        #expect(one.spreadGroups == parts.spreadGroups)
        #expect(one.bubbles == parts.bubbles)
        #expect(one.spreadFallbacks == parts.spreadFallbacks && one.spreadStacked == parts.spreadStacked)
    }
}
