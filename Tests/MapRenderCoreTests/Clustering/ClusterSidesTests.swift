import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// A pass decided on two sides that meet at a column (`Handoff`) decides as one thread does: the
/// same items, ids, counts and centroids at every zoom, on generated data made to cross the
/// column where the sides meet (dense clumps, exact duplicates, points spread over everything).
@Suite struct ClusterSidesTests {
    /// Points from a seeded generator: `clumps` Gaussian clumps (some sharing points exactly)
    /// and a uniform share, over a region `span` degrees wide.
    static func points(seed: UInt64, count: Int, clumps: Int, span: Double) -> PointSet {
        var rng = SeededRandom(seed: seed)
        let centres = (0..<clumps).map { _ in (rng.unit() * span - span / 2, rng.unit() * span * 0.6 - span * 0.3) }
        var coordinates: [(Double, Double)] = []
        for i in 0..<count {
            if i > 0 && rng.unit() < 0.03 {
                coordinates.append(coordinates[Int(rng.next() % UInt64(i))])
            } else if rng.unit() < 0.2 || centres.isEmpty {
                coordinates.append((rng.unit() * span - span / 2, rng.unit() * span * 0.6 - span * 0.3))
            } else {
                let c = centres[Int(rng.next() % UInt64(centres.count))]
                let spread = span / 50 * (0.05 + rng.unit())
                coordinates.append((c.0 + spread * rng.gaussian(), c.1 + spread * rng.gaussian()))
            }
        }
        var set = PointSet()
        set.lon = coordinates.map(\.0)
        set.lat = coordinates.map(\.1)
        return set
    }

    @Test(arguments: [(UInt64(1), 3000, 6, 40.0), (2, 6000, 1, 2.0), (3, 5000, 0, 300.0), (4, 8000, 20, 120.0)])
    func twoSidesDecideAsOne(seed: UInt64, count: Int, clumps: Int, span: Double) {
        let points = Self.points(seed: seed, count: count, clumps: clumps, span: span)
        let one = ClusterIndex.Pass.$sidesFrom.withValue(.max) { ClusterIndex(points: points) }
        let two = ClusterIndex.Pass.$claimsTurn.withValue(false) {
            ClusterIndex.Pass.$sidesFrom.withValue(1) { ClusterIndex(points: points) }
        }
        #expect(one.passesOnMeetingSides == 0)
        #expect(two.passesOnMeetingSides >= 3, "the sides met at a column in \(two.passesOnMeetingSides) passes")
        for zoom in 0...17 {
            let a = one.clusters(zoom: Double(zoom)), b = two.clusters(zoom: Double(zoom))
            let differing = a.indices.first { $0 < b.count && a[$0] != b[$0] }
            #expect(a.count == b.count && differing == nil,
                    "zoom \(zoom): \(a.count) and \(b.count) items; first differing: \(differing.map { "\(a[$0]) / \(b[$0])" } ?? "none")")
            if a != b { break }
        }
    }
}

/// A commit written in two parts of the input order (`Pass.commitPartsFrom`) writes what one
/// part does: the same items at every zoom, the same members and the same aggregates.
@Suite struct CommitPartsTests {
    @Test(arguments: [(UInt64(5), 4000, 8, 30.0), (6, 3000, 0, 200.0), (7, 5000, 1, 1.0)])
    func partsWriteAsOne(seed: UInt64, count: Int, clumps: Int, span: Double) {
        var points = ClusterSidesTests.points(seed: seed, count: count, clumps: clumps, span: span)
        let column = points.properties.addColumn("v")
        for i in 0..<count { points.properties.appendRow([(column, .number(Double((i * 37) % 101)))]) }
        let aggregates: [ClusterAggregate] = [.sum(field: "v"), .min(field: "v"), .max(field: "v")]
        let one = ClusterIndex.Pass.$commitPartsFrom.withValue(.max) { ClusterIndex(points: points, aggregates: aggregates) }
        let parts = ClusterIndex.Pass.$commitPartsFrom.withValue(1) { ClusterIndex(points: points, aggregates: aggregates) }
        var clustersSeen = 0
        for zoom in 0...17 {
            let a = one.clusters(zoom: Double(zoom)), b = parts.clusters(zoom: Double(zoom))
            #expect(a == b, "zoom \(zoom): \(a.count) and \(b.count) items")
            guard a == b else { break }
            for item in a where item.isCluster {
                clustersSeen += 1
                #expect(one.members(of: item.id) == parts.members(of: item.id), "members of cluster \(item.id)")
            }
        }
        #expect(clustersSeen > 100)
    }
}

extension SeededRandom {
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Standard normal (Box-Muller).
    mutating func gaussian() -> Double {
        let u = max(unit(), 1e-12), v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// Only one pass at a time decides on two meeting sides; the others wait for nobody.
@Suite struct HandoffTurnTests {
    @Test func aSecondClaimIsRefusedUntilTheFirstHandoffGoesAway() {
        // Other tests' passes may hold the turn for a moment: wait for it.
        var first: Handoff?
        while first == nil {
            first = Handoff.make(boundary: 0..<1)
            if first == nil { usleep(100) }
        }
        #expect(Handoff.make(boundary: 0..<1) == nil)
        #expect(Handoff.make(boundary: 0..<1, claimingTurn: false) != nil)
        first = nil
        var again: Handoff?
        for _ in 0..<10_000 where again == nil {
            again = Handoff.make(boundary: 0..<1)
            if again == nil { usleep(100) }
        }
        #expect(again != nil)
    }
}
