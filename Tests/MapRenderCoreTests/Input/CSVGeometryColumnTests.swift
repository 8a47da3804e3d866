import Foundation
import Testing
@testable import MapRenderCore

/// CSV rows whose geometry is one column: WKT (`--wkt`) or a Google encoded polyline (`--polyline`).
@Suite struct CSVGeometryColumnTests {
    func read(_ csv: String, _ column: InputOptions.GeometryColumn, precision: Int = 5) throws -> LoadedPoints {
        var o = InputOptions()
        o.geometryColumn = column
        o.polylinePrecision = precision
        return try PointReader.read(data: Data(csv.utf8), name: "g.csv", options: o)
    }

    @Test func wktRowsOfEveryKind() throws {
        let csv = """
            name,geom,rate
            a,POINT (2.35 48.85),1
            b,"LINESTRING (0 0, 10 10, 20 0)",2
            c,"POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 1))",3
            d,"MULTIPOLYGON (((10 10, 12 10, 12 12, 10 10)), ((20 20, 22 20, 22 22, 20 20)))",4
            e,"GEOMETRYCOLLECTION (POINT (5 5), LINESTRING (5 5, 6 6))",5
            f,SRID=4326;POINT (1 1),6
            """
        let r = try read(csv, .init(name: "geom", encoding: .wkt))
        #expect(r.points.count == 3)
        #expect(r.points.lon == [2.35, 5, 1] && r.points.lat == [48.85, 5, 1])
        #expect(r.shapes.kinds == [.line, .polygon, .polygon, .polygon, .line])
        #expect(r.shapes.rings(of: 1).count == 2)   // the exterior and its hole
        // Each shape has its row's properties; the geometry column is not a property.
        #expect(r.shapes.properties.names == ["name", "rate"])
        #expect((0..<r.shapes.shapeCount).map { r.shapes.properties.value("name", row: r.shapes.propertyRow(of: $0)!) }
                == [.string("b"), .string("c"), .string("d"), .string("d"), .string("e")])
        #expect(r.report.shapesRead == 5)
        #expect(r.report.skippedTotal == 0)
    }

    /// Damaged rows are skipped and counted with their line; the first WKT error is quoted.
    @Test func badWKTRowsAreSkippedByReason() throws {
        let csv = """
            id,wkt
            1,"LINESTRING (0 0, 1 1"
            2,"POLYGON ((0 0, 1 0, 1 1, 0 0)"
            3,"POLYGON ((0 0, 1 0, 1 1, 0 1))"
            4,"LINESTRING (0 0, 0 95)"
            5,
            6,"LINESTRING (0 0)"
            7,"LINESTRING (0 0, 1 1)"
            """
        let r = try read(csv, .init(name: "wkt", encoding: .wkt))
        #expect(r.shapes.shapeCount == 1)
        #expect(r.report.skipped[.malformedGeometry] == 2)
        #expect(r.report.examples[.malformedGeometry] == [2, 3])
        #expect(r.report.skipped[.ringNotClosed] == 1)
        #expect(r.report.skipped[.latitudeOutOfRange] == 1)
        #expect(r.report.skipped[.emptyCoordinate] == 1)
        #expect(r.report.skipped[.lineTooShort] == 1)
        let w = r.report.warnings().first { $0.contains("malformed geometry") }
        #expect(w?.hasPrefix("g.csv: skipped 2 rows: malformed geometry (first: line 2: WKT at character") == true)
    }

    /// Google's documented example, and precision 6 (OSRM, Valhalla).
    @Test func encodedPolylines() throws {
        let csv = "route,leg\n1,_p~iF~ps|U_ulLnnqC_mqNvxq`@\n2,\"_p~iF~ps|U_ulL\"\n3,??\n"
        let r = try read(csv, .init(name: "leg", encoding: .polyline))
        #expect(r.shapes.shapeCount == 1)
        let c = r.shapes.coords
        #expect(c.count == 6)
        #expect(abs(c[0] - -120.2) < 1e-9 && abs(c[1] - 38.5) < 1e-9 && abs(c[5] - 43.252) < 1e-9)
        #expect(r.report.skipped[.malformedGeometry] == 1)   // a truncated varint
        #expect(r.points.count == 1)                          // one position: a point
        let six = try read("id,p\n1,_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI\n", .init(name: "p", encoding: .polyline), precision: 6)
        #expect(six.shapes.vertexCount == 3)
        #expect(abs(six.shapes.coords[1] - 38.5) < 1e-9)
    }

    @Test func aMissingColumnIsAUsageError() throws {
        #expect { try read("id,geom\n1,POINT (0 0)\n", .init(name: "gemo", encoding: .wkt)) } throws: { e in
            "\(e)" == "wkt reads 'gemo', which g.csv does not have; did you mean 'geom'?"
        }
    }
}
