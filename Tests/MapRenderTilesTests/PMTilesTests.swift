import Foundation
import Testing
import TestSupport
@testable import MapRenderTiles
@testable import MapRenderCore

@Suite struct PMTilesTests {
    @Test func hilbertTileIDsMatchTheReferenceImplementation() throws {
        // ids.json: z, x, y, id computed by the `pmtiles` Python package (scripts/make-tile-fixtures).
        let url = TestPaths.repo.appendingPathComponent("Tests/MapRenderTilesTests/Fixtures/pmtiles-ids.json")
        let rows = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [[Int]]
        #expect(rows.count > 100)
        for r in rows {
            #expect(PMTilesSource.tileID(TileID(z: r[0], x: r[1], y: r[2])) == UInt64(r[3]), "tile \(r[0])/\(r[1])/\(r[2])")
        }
    }
}
