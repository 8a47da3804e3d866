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

    /// Expects `a` and `b` to hold the same items at zooms 0 to 17 (naming the first that differs)
    /// and the same members in every cluster; returns how many clusters it compared.
    @discardableResult
    static func expectSameHierarchy(_ a: ClusterIndex, _ b: ClusterIndex,
                                    sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var clustersSeen = 0
        for zoom in 0...17 {
            let x = a.clusters(zoom: Double(zoom)), y = b.clusters(zoom: Double(zoom))
            let differing = x.indices.first { $0 < y.count && x[$0] != y[$0] }
            #expect(x.count == y.count && differing == nil,
                    "zoom \(zoom): \(x.count) and \(y.count) items; first differing: \(differing.map { "\(x[$0]) / \(y[$0])" } ?? "none")",
                    sourceLocation: sourceLocation)
            guard x == y else { break }
            for item in x where item.isCluster {
                clustersSeen += 1
                #expect(a.members(of: item.id) == b.members(of: item.id), "members of cluster \(item.id)",
                        sourceLocation: sourceLocation)
            }
        }
        return clustersSeen
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

/// Beside another build (an animation's frames, a batch's maps) a pass decides on one side, and
/// the clusters are those of one thread.
@Suite struct ClusterBesideAnotherBuildTests {
    @Test func aBuildBesideAnotherDecidesOnOneSide() {
        let points = ClusterSidesTests.points(seed: 1, count: 3000, clumps: 6, span: 40.0)
        let one = ClusterIndex.Pass.$sidesFrom.withValue(.max) { ClusterIndex(points: points) }
        // Another build in progress for as long as this one runs.
        ClusterIndex.Pass.buildsRunning.add(1, ordering: .relaxed)
        let beside = ClusterIndex.Pass.$sidesFrom.withValue(1) { ClusterIndex(points: points) }
        ClusterIndex.Pass.buildsRunning.subtract(1, ordering: .relaxed)
        #expect(beside.passesOnMeetingSides == 0)
        for zoom in 0...17 {
            #expect(one.clusters(zoom: Double(zoom)) == beside.clusters(zoom: Double(zoom)), "zoom \(zoom)")
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
        #expect(ClusterSidesTests.expectSameHierarchy(one, parts) > 100)
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

/// The highest zooms clustered without the points that stay isolated through them
/// (`ClusterIndex.Freeze`) give what the grid of every point gives: the same items, ids, counts
/// and centroids to the last bit, and the same members, at every zoom. The points are spread
/// over a wide region with clumps (crowded and isolated points side by side), some sharing a
/// coordinate, and rounded to a coarse lattice so that many share a latitude (ties in y, which
/// the thaw orders as the grid of every point does).
@Suite struct ClusterFreezeTests {
    /// `radius` and `count` pick the thaw's change of columns (`step`): the same columns, half as
    /// wide (radius 115: zoom 11's cell just under a column, three zoom-12 radii over it), or twice
    /// as wide (8,000 points: the columns are set by the number of items, which falls below 7,680
    /// by zoom 11).
    @Test(arguments: [(UInt64(11), 20_000, 6, 60.0, 1e-3, 40.0, 0), (12, 30_000, 0, 300.0, 1e-2, 40.0, 0),
                      (13, 20_000, 30, 300.0, 1e-4, 40.0, 0), (14, 25_000, 10, 300.0, 0.0, 115.0, -1),
                      (15, 8000, 20, 20.0, 1e-4, 40.0, 1)])
    func aFreezeClustersAsTheWholeGridDoes(seed: UInt64, count: Int, clumps: Int, span: Double, lattice: Double,
                                           radius: Double, step: Int) {
        var points = ClusterSidesTests.points(seed: seed, count: count, clumps: clumps, span: span)
        if lattice > 0 {
            points.lon = points.lon.map { ($0 / lattice).rounded() * lattice }
            points.lat = points.lat.map { ($0 / lattice).rounded() * lattice }
        }
        let column = points.properties.addColumn("v")
        for i in 0..<count { points.properties.appendRow([(column, .number(Double((i * 31) % 97)))]) }
        let aggregates: [ClusterAggregate] = [.sum(field: "v"), .max(field: "v")]
        let options = ClusterOptions(radius: radius)
        // The grid of the zoom after the thaw holds the items in the same order either way (the
        // order in which a centroid's members are summed; ties in y decide it as often as not).
        let after = options.maxZoom - 5
        let wholeOrder = ClusterIndex.Freeze.GridOrder(zoom: after), frozenOrder = ClusterIndex.Freeze.GridOrder(zoom: after)
        let whole = ClusterIndex.Freeze.$gridOrder.withValue(wholeOrder) {
            ClusterIndex.Freeze.$from.withValue(.max) { ClusterIndex(points: points, options: options, aggregates: aggregates) }
        }
        let frozen = ClusterIndex.Freeze.$gridOrder.withValue(frozenOrder) {
            ClusterIndex.Freeze.$from.withValue(2) {
                ClusterIndex.Freeze.$forcedDepth.withValue(5) { ClusterIndex(points: points, options: options, aggregates: aggregates) }
            }
        }
        #expect(!wholeOrder.refs.isEmpty && wholeOrder.refs == frozenOrder.refs,
                "the grids' orders differ first at \(wholeOrder.refs.indices.first { $0 < frozenOrder.refs.count && wholeOrder.refs[$0] != frozenOrder.refs[$0] } ?? -1)")
        #expect(whole.frozenZooms == 0)
        #expect(frozen.frozenZooms == 5, "the freeze did not happen")
        #expect(frozen.thawStep == step)
        #expect(ClusterSidesTests.expectSameHierarchy(whole, frozen) > 100)
    }

    /// Points on a regular lattice a degree apart: none is crowded, the small grid is empty, and
    /// the clusters (made from zoom 7 down) are those of the grid of every point.
    @Test func aFreezeWithNoCrowdedPointClustersAsTheWholeGridDoes() {
        var points = PointSet()
        for row in 0..<40 {
            for k in 0..<60 {
                points.lon.append(-30 + Double(k))
                points.lat.append(-20 + Double(row))
            }
        }
        let whole = ClusterIndex.Freeze.$from.withValue(.max) { ClusterIndex(points: points) }
        let frozen = ClusterIndex.Freeze.$from.withValue(2) { ClusterIndex(points: points) }
        // Nobody crowded at any depth: the cost falls with every zoom frozen, down to the deepest.
        #expect(frozen.frozenZooms == ClusterIndex.Freeze.deepest, "the freeze did not happen")
        var clusters = 0
        for zoom in 0...17 {
            let a = whole.clusters(zoom: Double(zoom)), b = frozen.clusters(zoom: Double(zoom))
            #expect(a == b, "zoom \(zoom)")
            clusters += a.filter(\.isCluster).count
        }
        #expect(clusters > 100)
    }

    /// Radii of a few Float roundings (1 px at zoom 16; 40 px at zoom 23) are not frozen: the
    /// freeze's columns could be more than twice as wide as the thaw's. The clusters are those of
    /// the grid of every point either way.
    @Test(arguments: [(1.0, 16), (40.0, 23), (4.0, 16)])
    func tinyRadiiAreNotFrozen(radius: Double, maxZoom: Int) {
        let points = ClusterSidesTests.points(seed: 41, count: 4000, clumps: 0, span: 20)
        let options = ClusterOptions(maxZoom: maxZoom, radius: radius)
        let whole = ClusterIndex.Freeze.$from.withValue(.max) { ClusterIndex(points: points, options: options) }
        let frozen = ClusterIndex.Freeze.$from.withValue(2) {
            ClusterIndex.Freeze.$forcedDepth.withValue(5) { ClusterIndex(points: points, options: options) }
        }
        let r = 3 * options.radius(atZoom: maxZoom - 4) * (1 + 1e-9) + 0x1p-20
        #expect((frozen.frozenZooms > 0) == (r <= 2 * ClusterIndex.cell(options, zoom: maxZoom - 5)))
        for zoom in Swift.stride(from: 0, through: maxZoom + 1, by: 3) {
            #expect(whole.clusters(zoom: Double(zoom)) == frozen.clusters(zoom: Double(zoom)), "zoom \(zoom)")
        }
    }

    /// Ties in y between a point that stayed isolated and an item of the small grid, in one
    /// column: rows of points 0.0214° apart (just over three zoom-12 radii, just under a column
    /// of zoom 11's grid, so many columns hold two points of a row), every fourth one doubled
    /// (crowded: the pair becomes a cluster at the row's y). The grid after the thaw must order
    /// them as the grid of every point does.
    @Test func aThawOrdersEqualYsAsTheWholeGridDoes() {
        var points = PointSet()
        var rng = SeededRandom(seed: 21)
        for row in 0..<60 {
            for k in 0..<400 {
                let lon = -20 + Double(k) * 0.0214, lat = 10 + Double(row) * 0.05
                let copies = rng.next() % 4 == 0 ? 2 : 1
                for _ in 0..<copies {
                    points.lon.append(lon)
                    points.lat.append(lat)
                }
            }
        }
        let after = ClusterOptions().maxZoom - 5
        let wholeOrder = ClusterIndex.Freeze.GridOrder(zoom: after), frozenOrder = ClusterIndex.Freeze.GridOrder(zoom: after)
        let whole = ClusterIndex.Freeze.$gridOrder.withValue(wholeOrder) {
            ClusterIndex.Freeze.$from.withValue(.max) { ClusterIndex(points: points) }
        }
        let frozen = ClusterIndex.Freeze.$gridOrder.withValue(frozenOrder) {
            ClusterIndex.Freeze.$from.withValue(2) {
                ClusterIndex.Freeze.$forcedDepth.withValue(5) { ClusterIndex(points: points) }
            }
        }
        #expect(frozen.frozenZooms == 5, "the freeze did not happen")
        #expect(!wholeOrder.refs.isEmpty && wholeOrder.refs == frozenOrder.refs,
                "the grids' orders differ first at \(wholeOrder.refs.indices.first { $0 < frozenOrder.refs.count && wholeOrder.refs[$0] != frozenOrder.refs[$0] } ?? -1)")
        for zoom in 0...17 {
            #expect(whole.clusters(zoom: Double(zoom)) == frozen.clusters(zoom: Double(zoom)), "zoom \(zoom)")
        }
    }

    /// A freeze of any depth the radii allow clusters as the grid of every point does: the same
    /// items at every zoom, the same members, and the grid after the thaw in the same order.
    /// (Sparser data for deeper freezes, which need at least half the points isolated.)
    @Test(arguments: [(1, 8, 30.0), (2, 8, 30), (3, 8, 30), (4, 4, 60), (5, 0, 120), (6, 0, 200), (7, 0, 300), (8, 0, 300)])
    func aFreezeOfAnyDepthClustersAsTheWholeGridDoes(depth: Int, clumps: Int, span: Double) {
        let points = ClusterSidesTests.points(seed: 30 + UInt64(depth), count: 12_000, clumps: clumps, span: span)
        let options = ClusterOptions()
        let after = options.maxZoom - depth
        let wholeOrder = ClusterIndex.Freeze.GridOrder(zoom: after), frozenOrder = ClusterIndex.Freeze.GridOrder(zoom: after)
        let whole = ClusterIndex.Freeze.$gridOrder.withValue(wholeOrder) {
            ClusterIndex.Freeze.$from.withValue(.max) { ClusterIndex(points: points) }
        }
        let frozen = ClusterIndex.Freeze.$gridOrder.withValue(frozenOrder) {
            ClusterIndex.Freeze.$from.withValue(2) {
                ClusterIndex.Freeze.$forcedDepth.withValue(depth) { ClusterIndex(points: points) }
            }
        }
        #expect(frozen.frozenZooms == depth, "the freeze did not happen")
        #expect(!wholeOrder.refs.isEmpty && wholeOrder.refs == frozenOrder.refs)
        #expect(ClusterSidesTests.expectSameHierarchy(whole, frozen) > 100)
    }

    /// The depth a freeze takes follows the data: on points spread evenly over a region, the
    /// cheapest depth by `Freeze.cost` among every depth the radii allow (the search stops once no
    /// deeper depth can be cheaper), no deeper for four times the points on the same region (their
    /// crowded share at each radius is larger), and no freeze for clumps where most points are
    /// crowded.
    @Test func aFreezeTakesTheCheapestDepthForTheData() throws {
        let options = ClusterOptions()
        func plan(_ points: PointSet) -> ClusterIndex.Freeze? {
            let xy = zip(points.lon, points.lat).flatMap { [Float(WebMercator.x(lon: $0)), Float(WebMercator.y(lat: $1))] }
            return ClusterIndex.Freeze.$from.withValue(2) {
                xy.withUnsafeBufferPointer { ClusterIndex.Freeze.plan(points: points.count, xy: $0.baseAddress!, options: options, lowest: 0) }
            }
        }
        func depth(_ f: ClusterIndex.Freeze?) -> Int { f.map { options.maxZoom + 1 - $0.end } ?? 0 }
        /// Every depth's cost, each from a fresh sample as `plan` takes it; and the shares of one
        /// sample reloaded at every radius (as `plan` does) against those of the fresh samples.
        func costs(_ points: PointSet) -> [Int: Double] {
            let xy = zip(points.lon, points.lat).flatMap { [Float(WebMercator.x(lon: $0)), Float(WebMercator.y(lat: $1))] }
            let finest = NeighbourGrid.shift(cell: ClusterIndex.cell(options, zoom: options.maxZoom), count: points.count)
            var result: [Int: Double] = [:]
            xy.withUnsafeBufferPointer { xy in
                var reloaded = ClusterIndex.Freeze.CrowdSample(xy: xy.baseAddress!, count: points.count)
                for d in 1...ClusterIndex.Freeze.deepest {
                    guard let f = ClusterIndex.Freeze.at(depth: d, options: options, lowest: 0, finest: finest) else { continue }
                    var sample = ClusterIndex.Freeze.CrowdSample(xy: xy.baseAddress!, count: points.count)
                    let share = sample.crowdedShare(radius: f.radius)
                    #expect(reloaded.crowdedShare(radius: f.radius) == share, "depth \(d): a reloaded sample's share differs")
                    result[d] = ClusterIndex.Freeze.cost(depth: d, share: share)
                }
            }
            return result
        }
        var depths: [Int] = []
        for count in [20_000, 80_000] {
            let points = ClusterSidesTests.points(seed: 77, count: count, clumps: 0, span: 24)
            let chosen = depth(plan(points))
            let all = costs(points), cheapest = try #require(all.values.min())
            #expect(chosen > 0 && all[chosen] == cheapest, "\(count) points: depth \(chosen), costs \(all.sorted { $0.key < $1.key })")
            depths.append(chosen)
        }
        #expect(depths[1] <= depths[0], "four times the points froze deeper: \(depths)")
        #expect(depths[0] >= 3, "evenly spread points froze only \(depths[0]) zooms")
        let clumped = ClusterSidesTests.points(seed: 78, count: 40_000, clumps: 3, span: 2)
        #expect(plan(clumped) == nil, "clumps froze \(depth(plan(clumped))) zooms; costs \(costs(clumped).sorted { $0.key < $1.key })")
    }
}

/// Only a cluster made by the first pass can hold points that all share one coordinate
/// (`ClusterIndex.mayHoldOneCoordinate`, which lets planning skip looking up the members of the
/// others): checked on every cluster of every zoom of generated data with many shared coordinates,
/// with clusters of two points or more and of four or more.
@Suite struct OneCoordinateClusterTests {
    @Test(arguments: [(UInt64(31), 2), (32, 4), (33, 3)])
    func onlyFirstPassClustersHoldOneCoordinate(seed: UInt64, minPoints: Int) {
        var points = ClusterSidesTests.points(seed: seed, count: 6000, clumps: 8, span: 30)
        var rng = SeededRandom(seed: seed)
        // Groups of 2 to 6 points at one coordinate, some alone, some inside clumps.
        for _ in 0..<300 {
            let k = Int(rng.next() % UInt64(points.count))
            for _ in 0..<(1 + Int(rng.next() % 5)) {
                points.lon.append(points.lon[k])
                points.lat.append(points.lat[k])
            }
        }
        let index = ClusterIndex(points: points, options: ClusterOptions(minPoints: minPoints))
        var oneCoordinate = 0, skipped = 0
        for zoom in 0...16 {
            for item in index.clusters(zoom: Double(zoom)) where item.isCluster {
                let members = index.members(of: item.id) ?? []
                let shared = members.allSatisfy { points.lon[$0] == points.lon[members[0]] && points.lat[$0] == points.lat[members[0]] }
                if shared { oneCoordinate += 1 }
                if !index.mayHoldOneCoordinate(clusterID: item.id) {
                    skipped += 1
                    #expect(!shared, "cluster \(item.id) at zoom \(zoom) holds one coordinate but was ruled out")
                }
            }
        }
        #expect(oneCoordinate > 50 && skipped > 1000, "\(oneCoordinate) clusters of one coordinate, \(skipped) ruled out")
    }
}

/// The asked items parted between two sides (`Pass.split`, in parts on both cores from 2^16
/// items) keep each side in input order, as one pass over them in order does.
@Suite struct ClusterSplitTests {
    @Test(arguments: [(UInt64(1), 70_000), (2, 200_000), (3, 1000), (4, 131_071)])
    func partsKeepEachSideInOrder(seed: UInt64, m: Int) {
        var rng = SeededRandom(seed: seed)
        let room = m + Int(rng.next() % 1000)
        let index = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * room)
        let slot = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * room)
        defer { index.deallocate(); slot.deallocate() }
        for i in 0..<m {
            index[i] = Int32(i * 3 + Int(rng.next() % 3))
            slot[i] = Int32(rng.next() % 100_000)
        }
        let split = Int32(rng.next() % 100_000)
        let original = (0..<m).map { (index[$0], slot[$0]) }
        let expected = [original.filter { $0.1 < split }, original.filter { $0.1 >= split }]
        guard let sides = ClusterIndex.Pass.split(m, at: split, index, slot, room: room) else {
            #expect(expected.contains { $0.isEmpty }, "nil only when a side is empty")
            return
        }
        #expect(sides.count == 2 && sides.allSatisfy { $0.lowerBound >= room && $0.upperBound <= room + m })
        for (side, range) in sides.enumerated() {
            let got = range.map { (index[$0], slot[$0]) }
            #expect(got.count == expected[side].count && zip(got, expected[side]).allSatisfy { $0 == $1 },
                    "side \(side): \(got.count) items, \(expected[side].count) expected")
        }
        // The sources are left as they were.
        #expect((0..<m).allSatisfy { index[$0] == original[$0].0 && slot[$0] == original[$0].1 })
    }

    @Test func oneSideEmptyGivesNil() {
        let index = UnsafeMutablePointer<Int32>.allocate(capacity: 200)
        let slot = UnsafeMutablePointer<Int32>.allocate(capacity: 200)
        defer { index.deallocate(); slot.deallocate() }
        for i in 0..<100 { index[i] = Int32(i); slot[i] = Int32(10 + i) }
        #expect(ClusterIndex.Pass.split(100, at: 5, index, slot, room: 100) == nil)
        #expect(ClusterIndex.Pass.split(100, at: 500, index, slot, room: 100) == nil)
        // Slots 10...109: 40 on the left, 60 on the right, the right side first in the room.
        #expect(ClusterIndex.Pass.split(100, at: 50, index, slot, room: 100) == [160..<200, 100..<160])
    }
}
