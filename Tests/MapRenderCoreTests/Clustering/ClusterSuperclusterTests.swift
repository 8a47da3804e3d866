import Foundation
import Testing
@testable import MapRenderCore

/// supercluster's own test suite (`test/test.js`), on its fixtures, and supercluster's clusters of
/// the world cities. See `Fixtures/clustering/README.md` for where the files come from.
@Suite struct ClusterSuperclusterTests {
    typealias F = ClusterFixtures

    @Test func placesLoadAsSuperclusterSeesThem() throws {
        #expect(try F.places().points.count == 162)
        #expect(try F.places().report.recordsRead == 163)   // the null-geometry feature counts in cluster ids
        #expect(try F.places().points.id(at: 81) == .number(737))
    }

    /// Compares `getTile` features: pixel position, cluster id and count, or the point's name and id.
    func expectTile(_ index: ClusterIndex, z: Int, x: Int, y: Int, equals file: String) throws {
        let expected = try #require((try F.json(file) as? [String: Any])?["features"] as? [[String: Any]])
        let tile = index.tile(z: z, x: x, y: y)
        #expect(tile.count == expected.count)
        let points = try F.places().points
        for (got, want) in zip(tile, expected) {
            let geometry = try #require(want["geometry"] as? [[Int]])
            #expect([got.x, got.y] == geometry[0])
            let tags = try #require(want["tags"] as? [String: Any])
            if tags["cluster"] as? Bool == true {
                #expect(got.item.isCluster)
                #expect(got.item.id == tags["cluster_id"] as? Int && want["id"] as? Int == got.item.id)
                #expect(got.item.count == tags["point_count"] as? Int)
            } else {
                let p = try #require(got.item.pointIndex)
                #expect(points.properties.value("name", row: p) == .string(tags["name"] as! String))
                #expect(points.properties.value("scalerank", row: p) == .number(tags["scalerank"] as! Double))
                if let id = want["id"] as? Double { #expect(points.id(at: p) == .number(id)) } else { #expect(points.id(at: p) == .missing) }
            }
        }
    }

    @Test(arguments: [false, true])
    func generatesClustersProperly(bitExact: Bool) throws {
        try expectTile(F.placesIndex(bitExact: bitExact), z: 0, x: 0, y: 0, equals: "places-z0-0-0.json")
    }

    @Test(arguments: [false, true])
    func supportsMinPoints(bitExact: Bool) throws {
        try expectTile(F.placesIndex(ClusterOptions(minPoints: 5), bitExact: bitExact), z: 0, x: 0, y: 0,
                       equals: "places-z0-0-0-min5.json")
    }

    @Test func childrenOfACluster() throws {
        let children = try #require(F.placesIndex().children(of: 164))
        #expect(children.map(\.count) == [6, 7, 2, 1])
    }

    @Test func leavesOfACluster() throws {
        let index = try F.placesIndex()
        let leaves = try #require(index.leaves(of: 164, limit: 10, offset: 5))
        let places = try F.places().points
        let names = leaves.map { places.properties.value("name", row: $0).displayText ?? "" }
        #expect(names == ["Niagara Falls", "Cape San Blas", "Cape Sable", "Cape Canaveral", "San  Salvador",
                          "Cabo Gracias a Dios", "I. de Cozumel", "Grand Cayman", "Miquelon", "Cape Bauld"])
    }

    @Test func pointIdsInTheTile() throws {
        // supercluster's generateId test: unclustered points numbered by input index.
        let ids = try F.placesIndex().tile(z: 0, x: 0, y: 0).compactMap(\.item.pointIndex)
        #expect(ids == [12, 20, 21, 22, 24, 28, 30, 62, 81, 118, 119, 125, 81, 118])
    }

    @Test func clusterExpansionZoom() throws {
        let index = try F.placesIndex()
        #expect([164, 196, 581, 1157, 4134].map { index.expansionZoom(of: $0) } == [1, 1, 2, 2, 3])
        let capped = try F.placesIndex(ClusterOptions(maxZoom: 4, radius: 60, extent: 256))
        #expect(capped.expansionZoom(of: 2504) == 5)
    }

    @Test func aggregatesAsReduce() throws {
        // map: props => ({sum: props.scalerank}), reduce: (a, b) => { a.sum += b.sum }, radius: 100.
        let index = try F.placesIndex(ClusterOptions(radius: 100), aggregates: [.sum(field: "scalerank")])
        func sums(_ z: Int) -> [Double] {
            index.tile(z: z, x: 0, y: 0).compactMap { $0.item.isCluster ? $0.item.aggregates["sum_scalerank"] : nil }
        }
        #expect(sums(1) == [146, 84, 63, 23, 34, 12, 19, 29, 8, 8, 80, 35])
        #expect(sums(0) == [298, 122, 12, 36, 98, 7, 24, 8, 125, 98, 125, 12, 36, 8])
    }

    @Test func queriesAcrossTheDateline() {
        let p = F.points([(-178.989, 0), (-178.990, 0), (-178.991, 0), (-178.992, 0)])
        let index = ClusterIndex(points: p)
        let nonCrossing = index.clusters(west: -179, south: -10, east: -177, north: 10, zoom: 1)
        let crossing = index.clusters(west: 179, south: -10, east: -177, north: 10, zoom: 1)
        #expect(!nonCrossing.isEmpty && nonCrossing == crossing)
    }

    @Test func weirdBoxes() throws {
        let index = try F.placesIndex()
        let boxes: [(Double, Double, Double, Double, Int)] = [
            (129.426390, -103.720017, -445.930843, 114.518236, 26),
            (112.207836, -84.578666, -463.149397, 120.169159, 27),
            (129.886277, -82.332680, -445.470956, 120.390930, 26),
            (458.220043, -84.239039, -117.137190, 120.206585, 25),
            (456.713058, -80.354196, -118.644175, 120.539148, 25),
            (453.105328, -75.857422, -122.251904, 120.732760, 25),
            (-180, -90, 180, 90, 61),
        ]
        for b in boxes {
            #expect(index.clusters(west: b.0, south: b.1, east: b.2, north: b.3, zoom: 1).count == b.4)
        }
        // A fractional zoom is floored (supercluster's test only asks that it does not throw).
        #expect(index.clusters(west: 179, south: -10, east: -177, north: 10, zoom: 1.25)
            == index.clusters(west: 179, south: -10, east: -177, north: 10, zoom: 1))
    }

    @Test func unclusteredPointPositionsAreNotRounded() {
        let index = ClusterIndex(points: F.points([(173.19150559062456, -41.340357424709275)]),
                                 options: ClusterOptions(maxZoom: 19))
        let tile = index.tile(z: 20, x: 1_028_744, y: 656_754)
        #expect(tile.map { [$0.x, $0.y] } == [[421, 281]])
    }

    /// supercluster's `getClusters` of the whole world at zooms 0...3 for the world cities: the
    /// same items in the same order, with the same ids, counts, positions and population sums.
    @Test(arguments: [false, true])
    func worldCitiesAsSupercluster(bitExact: Bool) throws {
        let expected = try #require((try F.json("world_cities_15000-z0-3.json") as? [String: Any])?["zooms"] as? [String: [[Double]]])
        let index = ClusterIndex(points: try F.worldCities().points, aggregates: [.sum(field: "population")],
                                 bitExact: bitExact)
        for zoom in 0...3 {
            let want = try #require(expected[String(zoom)])
            let got = index.clusters(zoom: Double(zoom))
            #expect(got.count == want.count, "zoom \(zoom)")
            for (item, w) in zip(got, want) {
                if w.count == 1 {
                    #expect(item.pointIndex == Int(w[0]))
                } else {
                    #expect(item.isCluster && item.id == Int(w[0]) && item.count == Int(w[1]))
                    #expect(abs(item.lon - w[2]) < 1e-9 && abs(item.lat - w[3]) < 1e-9)
                    #expect(item.aggregates["sum_population"] == w[4])
                }
            }
        }
    }
}
