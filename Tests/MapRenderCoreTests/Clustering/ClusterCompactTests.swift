import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// An index that keeps only its lowest zoom answers like a full one for what a single map asks.
@Suite struct ClusterCompactTests {
    @Test(arguments: [0, 3, 6])
    func compactIndexMatchesTheFullOne(zoom: Int) throws {
        let cities = try PointReader.read(path: TestPaths.shared("world_cities_15000.csv"), options: InputOptions())
        let full = ClusterIndex(points: cities.points, downTo: zoom)
        let compact = ClusterIndex(points: cities.points, downTo: zoom, retainAllZooms: false)
        let a = full.clusters(zoom: Double(zoom)), b = compact.clusters(zoom: Double(zoom))
        #expect(a == b)
        var seen = 0
        for item in a where item.isCluster {
            let m = try #require(compact.members(of: item.id))
            #expect(m == full.members(of: item.id))
            // The same points as supercluster's `getLeaves` finds through the levels' trees.
            #expect(m == (try #require(full.leaves(of: item.id))).sorted())
            #expect(m.count == item.count)
            seen += m.count
        }
        #expect(seen + a.filter { !$0.isCluster }.count == cities.points.count)
        #expect(compact.children(of: a.first(where: \.isCluster)!.id) == nil)
    }
}
