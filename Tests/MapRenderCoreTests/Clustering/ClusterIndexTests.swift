import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Small hand-made cases whose answers follow from supercluster's rules.
@Suite struct ClusterIndexTests {
    typealias F = ClusterFixtures

    /// Three points 0.001° apart at (0, 0) and one far away. 0.001° is 2.78e-6 world units: the
    /// radius (40 / (512 · 2^z)) reaches it from zoom 14 down (4.77e-6), not at 15 (2.38e-6).
    static let threeAndOne = F.points([(0, 0), (0.001, 0), (0, 0.001), (100, 50)], values: [1, 2.5, nil, 10])

    @Test func threeClosePointsClusterAtZoom14WithSuperclustersId() throws {
        let index = ClusterIndex(points: Self.threeAndOne)
        for zoom in [0.0, 3, 14] {
            let items = index.clusters(zoom: zoom)
            #expect(items.count == 2)
            let cluster = try #require(items.first { $0.isCluster })
            // Made at zoom 14 from item 0 of zoom 15: (0 << 5) + (14 + 1) + 4 points.
            #expect(cluster.id == 19)
            #expect(cluster.count == 3 && cluster.pointIndex == nil)
            #expect(cluster.abbreviatedCount == "3")
            // The centroid of the Float-rounded positions (their sum is exact in any order).
            let a = F.stored(0, 0), b = F.stored(0.001, 0), c = F.stored(0, 0.001)
            #expect(cluster.x == (a.x + b.x + c.x) / 3)
            #expect(cluster.y == (a.y + b.y + c.y) / 3)
            #expect(cluster.lon == WebMercator.lon(x: cluster.x) && cluster.lat == WebMercator.lat(y: cluster.y))
            let point = try #require(items.first { !$0.isCluster })
            #expect(point.pointIndex == 3 && point.id == 3 && point.count == 1)
            #expect(point.lon == 100 && point.lat == 50)
            #expect(point.x == F.stored(100, 50).x && point.y == F.stored(100, 50).y)
        }
        for zoom in [15.0, 16, 17, 30] {
            let items = index.clusters(zoom: zoom)
            #expect(items.count == 4 && items.allSatisfy { !$0.isCluster })
            #expect(Set(items.compactMap(\.pointIndex)) == [0, 1, 2, 3])
        }
        #expect(index.expansionZoom(of: 19) == 15)
        #expect(Set(try #require(index.children(of: 19)).compactMap(\.pointIndex)) == [0, 1, 2])
        #expect(Set(try #require(index.leaves(of: 19))) == [0, 1, 2])
        #expect(try #require(index.leaves(of: 19, limit: 2, offset: 0)).count == 2)
        #expect(try #require(index.leaves(of: 19, limit: 10, offset: 2)).count == 1)
        #expect(index.members(of: 19) == [0, 1, 2])
        #expect(index.members(of: 3) == nil && index.members(of: 20) == nil && index.members(of: 1 << 40) == nil)
        #expect(index.children(of: 3) == nil)     // a point's index is not a cluster id
        #expect(index.children(of: 20) == nil)    // no cluster was made at zoom 15
        #expect(index.expansionZoom(of: 12345) == nil)
        #expect(index.leaves(of: -1) == nil)
    }

    @Test(arguments: [false, true])
    func membersAreTheLeaves(bitExact: Bool) throws {
        let index = ClusterIndex(points: try F.worldCities().points, options: ClusterOptions(minPoints: 3), downTo: 2,
                                 bitExact: bitExact)
        for zoom in [2.0, 5, 9, 14] {
            for item in index.clusters(in: GeoBounds(west: -30, south: 20, east: 60, north: 70), zoom: zoom) where item.isCluster {
                let members = try #require(index.members(of: item.id))
                #expect(members == (index.leaves(of: item.id) ?? []).sorted())
                #expect(members.count == item.count)
            }
        }
    }

    @Test func minPointsKeepsSmallGroupsApart() {
        let index = ClusterIndex(points: Self.threeAndOne, options: ClusterOptions(minPoints: 4))
        let items = index.clusters(zoom: 0)
        #expect(items.count == 4 && items.allSatisfy { !$0.isCluster })
        #expect(index.clusters(zoom: 0).map(\.count).reduce(0, +) == 4)
        let three = ClusterIndex(points: Self.threeAndOne, options: ClusterOptions(minPoints: 3))
        #expect(three.clusters(zoom: 0).filter(\.isCluster).map(\.count) == [3])
    }

    @Test func aggregatesReduceOverClustersAndKeepPointValues() throws {
        let aggregates: [ClusterAggregate] = [.sum(field: "v"), .max(field: "v"), .min(field: "v"), .mean(field: "v"),
                                              .sum(field: "nothing")]
        #expect(aggregates.map(\.propertyName) == ["sum_v", "max_v", "min_v", "mean_v", "sum_nothing"])
        let index = ClusterIndex(points: Self.threeAndOne, aggregates: aggregates)
        let items = index.clusters(zoom: 0)
        let cluster = try #require(items.first { $0.isCluster })
        // Point 2 has no value: left out of the sum, extremes and mean.
        #expect(cluster.aggregates == ["sum_v": 3.5, "max_v": 2.5, "min_v": 1, "mean_v": 1.75])
        let point = try #require(items.first { !$0.isCluster })
        #expect(point.aggregates == ["sum_v": 10, "max_v": 10, "min_v": 10, "mean_v": 10])
        // A cluster none of whose points has a value carries none.
        let bare = ClusterIndex(points: F.points([(0, 0), (0.001, 0)], values: [nil, nil]), aggregates: [.sum(field: "v")])
        #expect(bare.clusters(zoom: 0).map(\.aggregates) == [[:]])
    }

    @Test func pointCountAbbreviations() {
        let cases: [(Int, String)] = [
            (1, "1"), (999, "999"), (1000, "1k"), (1049, "1k"), (1050, "1.1k"), (1500, "1.5k"), (1550, "1.6k"),
            (9949, "9.9k"), (9950, "10k"), (9999, "10k"), (10_000, "10k"), (10_499, "10k"), (10_500, "11k"),
            (999_499, "999k"), (1_500_000, "1500k"), (12_345_678, "12346k"),
        ]
        for (count, text) in cases {
            #expect(ClusterItem.abbreviate(count) == text, "\(count)")
        }
    }

    @Test func boxesAcrossTheAntimeridian() {
        let p = F.points([(179.5, 0), (-179.5, 0), (0, 0), (179.5, 60)])
        let index = ClusterIndex(points: p)
        let zoom = 17.0   // every point alone
        // West of east: the box crosses the antimeridian; the eastern part's items come first.
        #expect(index.clusters(west: 179, south: -10, east: -179, north: 10, zoom: zoom).compactMap(\.pointIndex) == [0, 1])
        #expect(index.clusters(in: GeoBounds(west: 179, south: -10, east: -179, north: 10), zoom: zoom)
            .compactMap(\.pointIndex) == [0, 1])
        // Longitudes are normalised: 539° is 179°, -541° is -181° = 179°.
        #expect(index.clusters(west: 539, south: -10, east: -179, north: 10, zoom: zoom).compactMap(\.pointIndex) == [0, 1])
        #expect(index.clusters(west: 178, south: -10, east: 180, north: 10, zoom: zoom).compactMap(\.pointIndex) == [0])
        #expect(index.clusters(west: -180, south: -10, east: -179, north: 10, zoom: zoom).compactMap(\.pointIndex) == [1])
        // 360° or more is the whole world; latitudes are clamped to ±90.
        #expect(index.clusters(west: -200, south: -100, east: 200, north: 100, zoom: zoom).count == 4)
        #expect(index.clusters(west: 10, south: -10, east: 20, north: 10, zoom: zoom).isEmpty)
        // At zoom 0 the two points beside the antimeridian are far apart in Mercator x: no cluster.
        #expect(index.clusters(zoom: 0).count == 4)
    }

    @Test func zoomsAreFlooredAndClamped() {
        let index = ClusterIndex(points: Self.threeAndOne, options: ClusterOptions(minZoom: 2, maxZoom: 15))
        #expect(index.clusters(zoom: 14.99).count == 2)
        #expect(index.clusters(zoom: 15).count == 4)
        #expect(index.clusters(zoom: 0).count == index.clusters(zoom: 2).count)   // below minZoom: minZoom
        #expect(index.clusters(zoom: 40).count == 4)                              // above maxZoom + 1: maxZoom + 1
        #expect(index.itemCount(zoom: 2) == 2 && index.itemCount(zoom: 16) == 4)
        #expect(index.clusters(zoom: .infinity).count == 4)
    }

    @Test func buildingDownToAZoomGivesTheSameClustersThere() throws {
        let points = try F.worldCities().points
        let full = ClusterIndex(points: points)
        let partial = ClusterIndex(points: points, downTo: 6)
        #expect(partial.lowestBuiltZoom == 6 && full.lowestBuiltZoom == 0)
        for zoom in [6.0, 6.5, 9, 17] {
            #expect(partial.clusters(zoom: zoom) == full.clusters(zoom: zoom))
        }
        let bounds = GeoBounds(west: -10, south: 35, east: 30, north: 60)
        #expect(partial.clusters(in: bounds, zoom: 7) == full.clusters(in: bounds, zoom: 7))
    }

    @Test func emptyAndSinglePointSets() {
        let empty = ClusterIndex(points: PointSet())
        #expect(empty.clusters(zoom: 0).isEmpty && empty.clusters(zoom: 17).isEmpty)
        #expect(empty.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 0) == [])
        let one = ClusterIndex(points: F.points([(13.4, 52.5)]))
        #expect(one.clusters(zoom: 0).map(\.pointIndex) == [0])
    }

    @Test func pointsAtTheSamePlaceCluster() {
        // supercluster's test: two identical points with maxZoom 20, extent 8192, radius 16.
        let p = F.points([(-1.426798, 53.943034), (-1.426798, 53.943034)])
        let index = ClusterIndex(points: p, options: ClusterOptions(maxZoom: 20, radius: 16, extent: 8192))
        #expect(index.itemCount(zoom: 20) == 1)
        #expect(index.clusters(zoom: 20).map(\.count) == [2])
    }

    @Test func polesAndEdgesProject() {
        let p = F.points([(-180, 90), (180, -90), (0, 89.9), (0, -89.9)])
        let index = ClusterIndex(points: p)
        let items = index.clusters(zoom: 17)
        #expect(items.count == 4)
        let ys = Dictionary(uniqueKeysWithValues: items.map { ($0.pointIndex!, $0.y) })
        #expect(ys[0] == 0 && ys[1] == 1 && ys[2] == 0 && ys[3] == 1)   // clamped to the square world
        #expect(index.clusters(zoom: 0).map(\.count).reduce(0, +) == 4)
    }

    @Test func fastAndBitExactBuildsAgreeOnRealData() throws {
        // The world cities at default options and with minPoints 5 (where kept neighbours are
        // ordered as the KD-tree orders them).
        for options in [ClusterOptions(), ClusterOptions(minPoints: 5, radius: 60)] {
            let fast = ClusterIndex(points: try F.worldCities().points, options: options, aggregates: [.sum(field: "population")])
            let exact = ClusterIndex(points: try F.worldCities().points, options: options, aggregates: [.sum(field: "population")],
                                     bitExact: true)
            for zoom in 0...17 {
                let a = fast.clusters(zoom: Double(zoom)), b = exact.clusters(zoom: Double(zoom))
                #expect(a.count == b.count)
                guard a.count == b.count else { continue }
                for (p, q) in zip(a, b) {
                    #expect(p.id == q.id && p.count == q.count && p.pointIndex == q.pointIndex)
                    #expect(abs(p.x - q.x) < 1e-15 && abs(p.y - q.y) < 1e-15)
                    #expect(p.aggregates == q.aggregates)
                }
            }
        }
    }

    /// A zoom with many crowded items is decided on two threads, one each side of an empty grid
    /// column: the clusters must be those of supercluster's own order all the same.
    @Test func largeBuildsDecidedOnTwoThreadsAgreeWithTheTreeOrder() throws {
        // Six points scattered around each of the world cities: about 200,000.
        var rng = SeededRandom(seed: 17)
        var coordinates: [(Double, Double)] = []
        let cities = try F.worldCities().points
        for i in 0..<cities.count {
            for _ in 0..<6 {
                let d = Double.random(in: 0..<0.05, using: &rng), a = Double.random(in: 0..<2 * .pi, using: &rng)
                coordinates.append((min(180, max(-180, cities.lon[i] + d * cos(a))), min(85, max(-85, cities.lat[i] + d * sin(a)))))
            }
        }
        let points = F.points(coordinates)
        let fast = ClusterIndex(points: points, downTo: 2)
        let exact = ClusterIndex(points: points, downTo: 2, bitExact: true)
        for zoom in [2, 6, 9, 12, 15] {
            let a = fast.clusters(zoom: Double(zoom)), b = exact.clusters(zoom: Double(zoom))
            #expect(a.count == b.count)
            guard a.count == b.count else { continue }
            #expect(zip(a, b).allSatisfy { p, q in
                p.id == q.id && p.count == q.count && p.pointIndex == q.pointIndex
                    && abs(p.x - q.x) < 1e-15 && abs(p.y - q.y) < 1e-15
            })
        }
        let bubble = fast.clusters(zoom: 2).first(where: \.isCluster)!
        #expect(fast.members(of: bubble.id) == exact.members(of: bubble.id))
    }

    /// Spread-out points, most with nobody near until a low zoom (isolated at zoom after zoom, as
    /// on land-like data), some with a neighbour at every distance from metres to hundreds of
    /// kilometres: the clusters of supercluster's own order at every zoom.
    @Test func spreadPointsGiveTheTreeOrdersClusters() throws {
        var rng = SeededRandom(seed: 5)
        var coordinates: [(Double, Double)] = []
        for _ in 0..<40_000 {
            let lon = Double.random(in: -180..<180, using: &rng), lat = Double.random(in: -80..<80, using: &rng)
            coordinates.append((lon, lat))
            // A neighbour at every distance from a few metres to a few hundred kilometres.
            if Double.random(in: 0..<1, using: &rng) < 0.3 {
                let d = pow(10, Double.random(in: -4.5..<0.5, using: &rng))
                coordinates.append((min(180, lon + d), lat))
            }
        }
        let points = F.points(coordinates)
        let fast = ClusterIndex(points: points)
        let exact = ClusterIndex(points: points, bitExact: true)
        for zoom in 0...17 {
            let a = fast.clusters(zoom: Double(zoom)), b = exact.clusters(zoom: Double(zoom))
            #expect(a.count == b.count, "zoom \(zoom)")
            guard a.count == b.count else { continue }
            #expect(zip(a, b).allSatisfy { p, q in
                p.id == q.id && p.count == q.count && p.pointIndex == q.pointIndex
                    && abs(p.x - q.x) < 1e-15 && abs(p.y - q.y) < 1e-15
            }, "zoom \(zoom)")
        }
    }

    /// What greedy clustering guarantees, on 34006 real points, at every zoom.
    @Test func worldCitiesInvariants() throws {
        let points = try F.worldCities().points
        let n = points.count
        #expect(n == 34006)
        let index = ClusterIndex(points: points, aggregates: [.sum(field: "population"), .max(field: "population")])
        let totalPopulation = points.properties.columns[points.properties.columnIndex("population")!]
            .compactMap(\.numberValue).reduce(0, +)
        var previousCount = 0
        for zoom in 0...17 {
            let items = index.clusters(zoom: Double(zoom))
            // Every point is in exactly one item.
            #expect(items.map(\.count).reduce(0, +) == n, "zoom \(zoom)")
            #expect(items.map { $0.aggregates["sum_population"] ?? 0 }.reduce(0, +) == totalPopulation)
            // More items as the zoom goes up; ids unique.
            #expect(items.count >= previousCount)
            previousCount = items.count
            #expect(Set(items.map(\.id)).count == items.count)
            for item in items where item.isCluster {
                #expect(item.id >= n && (item.id - n) % 32 >= zoom + 1)   // made at this zoom or above
                #expect(item.count >= 2)
                #expect(item.x >= 0 && item.x <= 1 && item.y >= 0 && item.y <= 1)
            }
        }
        #expect(index.clusters(zoom: 17).allSatisfy { !$0.isCluster })

        // At zoom 3: the leaves of the clusters and the points are every point once.
        var seen = [Bool](repeating: false, count: n)
        for item in index.clusters(zoom: 3) {
            let members = item.isCluster ? try #require(index.leaves(of: item.id)) : [item.pointIndex!]
            #expect(members.count == item.count)
            for m in members {
                #expect(!seen[m])
                seen[m] = true
            }
            if item.isCluster {
                #expect(index.members(of: item.id) == members.sorted())
                // Children at the next zoom add up, and name this cluster's zoom.
                let children = try #require(index.children(of: item.id))
                #expect(children.map(\.count).reduce(0, +) == item.count)
                let expansion = try #require(index.expansionZoom(of: item.id))
                #expect(expansion > 3 && expansion <= 17)
                // A cluster's position is the count-weighted mean of its points' positions.
                let mx = members.map { F.stored(points.lon[$0], points.lat[$0]).x }.reduce(0, +) / Double(item.count)
                #expect(abs(mx - item.x) < 1e-12)
                let maxPopulation = members.compactMap { points.properties.value("population", row: $0).numberValue }.max()
                #expect(item.aggregates["max_population"] == maxPopulation)
            }
        }
        #expect(seen.allSatisfy { $0 })

        // The same input gives the same index.
        let again = ClusterIndex(points: points, aggregates: [.sum(field: "population"), .max(field: "population")])
        for zoom in [0.0, 4, 8, 12] { #expect(again.clusters(zoom: zoom) == index.clusters(zoom: zoom)) }
    }
}
