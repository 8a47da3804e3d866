import Foundation
import Testing
@testable import MapRenderCore

/// `ShapeReader.readFeatures`, a basemap style's GeoJSON source: points kept with their feature's
/// properties, a row per kind of geometry with its `$type`; `read` (the `--basemap` files) as before.
@Suite struct ShapeReaderFeaturesTests {
    static let json = #"""
    {"type": "FeatureCollection", "features": [
      {"type": "Feature", "properties": {"name": "A"}, "geometry": {"type": "Point", "coordinates": [1, 2]}},
      {"type": "Feature", "properties": {"name": "B"}, "geometry": {"type": "MultiPoint", "coordinates": [[3, 4], [5, 6]]}},
      {"type": "Feature", "properties": {"name": "C"}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}},
      {"type": "Feature", "properties": {"name": "D"}, "geometry": {"type": "GeometryCollection", "geometries": [
        {"type": "Point", "coordinates": [7, 8]},
        {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}]}}
    ]}
    """#

    @Test func pointsAndTypesByKind() throws {
        let (shapes, points) = try ShapeReader.readFeatures(data: Data(Self.json.utf8), name: "t.geojson")
        let p = shapes.properties
        func value(_ key: String, _ row: Int) -> PropertyValue { p.value(column: p.columnIndex(key)!, row: row) }
        #expect(points.coords == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(points.rows.map { value("name", Int($0)) } == [.string("A"), .string("B"), .string("B"), .string("D")])
        #expect(points.rows.allSatisfy { value("$type", Int($0)) == .string("Point") })
        // The line and the collection's polygon: their own rows, typed; D's polygon and point apart.
        #expect(shapes.kinds == [.line, .polygon])
        #expect((0..<shapes.shapeCount).map { value("$type", shapes.propertyRow(of: $0)!) } == [.string("LineString"), .string("Polygon")])
        #expect(value("name", shapes.propertyRow(of: 1)!) == .string("D") && shapes.propertyRow(of: 1)! != Int(points.rows[3]))
        // The --basemap reader: no points, no $type column, one row per feature with shapes.
        let plain = try ShapeReader.read(data: Data(Self.json.utf8), name: "t.geojson")
        #expect(plain.kinds == [.line, .polygon] && plain.properties.columnIndex("$type") == nil && plain.properties.rowCount == 2)
    }
}
