import TestSupport
import Foundation
@testable import MapRenderCore

/// Data the clustering tests share: supercluster's fixtures and the world cities.
enum ClusterFixtures {
    static func path(_ name: String) -> String {
        TestPaths.repoFile("Tests/MapRenderCoreTests/Fixtures/clustering/" + name)
    }

    static func json(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// supercluster's `places.json`: 162 points and one feature with a null geometry (163 features).
    /// Read once; a missing or unreadable file fails each test that needs it, with the reader's message.
    static func places() throws -> LoadedPoints { try placesRead.get() }
    private static let placesRead = Result { try PointReader.read(path: path("places.json"), options: InputOptions()) }

    /// The GeoNames cities (vendored in samples/).
    static func worldCities() throws -> LoadedPoints { try worldCitiesRead.get() }
    private static let worldCitiesRead = Result {
        try PointReader.read(path: TestPaths.shared("world_cities_15000.csv"), options: InputOptions())
    }

    static func placesIndex(_ options: ClusterOptions = ClusterOptions(), aggregates: [ClusterAggregate] = [],
                            bitExact: Bool = false) throws -> ClusterIndex {
        let places = try places()
        return ClusterIndex(points: places.points, options: options, aggregates: aggregates,
                            featureCount: places.report.recordsRead, bitExact: bitExact)
    }

    /// A point set from longitude/latitude pairs, with an optional numeric property "v".
    static func points(_ coordinates: [(Double, Double)], values: [Double?] = []) -> PointSet {
        var p = PointSet()
        let column = values.isEmpty ? nil : p.properties.addColumn("v")
        for (i, (lon, lat)) in coordinates.enumerated() {
            p.lon.append(lon)
            p.lat.append(lat)
            if let column, let v = values[i] {
                p.properties.appendRow([(column, .number(v))])
            } else {
                p.properties.appendEmptyRow()
            }
        }
        return p
    }

    /// The Mercator x and y supercluster stores for a point (rounded to Float).
    static func stored(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
        (Double(Float(WebMercator.x(lon: lon))), Double(Float(WebMercator.y(lat: lat))))
    }
}
