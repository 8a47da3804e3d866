import Foundation
import Testing
@testable import MapRenderCore

@Suite("GeoJSON reader")
struct InputGeoJSONReaderTests {
    typealias F = InputFixtures

    private func read(_ json: String, options: InputOptions = InputOptions()) throws -> LoadedPoints {
        try PointReader.read(data: Data(json.utf8), name: "t.geojson", options: options)
    }

    /// A still map reads without ids: the same points and properties, no ids.
    @Test func withoutIDs() throws {
        var o = InputOptions()
        o.keepIDs = false
        let kept = try F.readFixture("mixed.geojson"), without = try F.readFixture("mixed.geojson", options: o)
        #expect(kept.points.ids.count == 5 && without.points.ids.isEmpty)
        #expect(without.points.lon == kept.points.lon && without.points.lat == kept.points.lat)
        #expect(without.points.properties.names == kept.points.properties.names)
        for c in kept.points.properties.columns.indices {
            #expect(without.points.properties.columns[c] == kept.points.properties.columns[c])
        }
        #expect(without.report == kept.report)
    }

    @Test func mixedGeometries() throws {
        let r = try F.readFixture("mixed.geojson")
        let p = r.points
        #expect(r.report.format == "geojson")
        #expect(r.report.recordsRead == 12)
        #expect(p.count == 5)
        #expect(p.lon == [1.5, 10, 30, 5, -70])
        #expect(p.lat == [2.5, 20, 40, 6, -30])
        #expect(p.ids == [.string("a"), .number(7), .number(7), .missing, .string("z")])
        let v = { (name: String, row: Int) in p.properties.value(name, row: row) }
        #expect(v("name", 0) == .string("Café \"A\""))
        #expect(v("n", 0) == .number(3))
        #expect(v("ok", 0) == .bool(true))
        #expect(v("none", 0) == .null)
        #expect(v("tags", 0) == .json("[1,\"x\",{\"k\":\"v\"}]"))
        #expect(v("meta", 0) == .json("{\"a\":1}"))
        #expect(v("none", 1) == .missing)
        #expect(v("name", 1) == .string("multi") && v("name", 2) == .string("multi"))
        #expect(v("name", 3) == .string("collection"))
        #expect(v("name", 4) == .string("type last"))

        let rep = r.report
        #expect(rep.skippedGeometries == ["LineString": 2, "Polygon": 1, "null": 1])
        #expect(rep.examples[.unsupportedGeometry] == [2, 3, 5])
        #expect(rep.examples[.nullGeometry] == [4])
        #expect(rep.examples[.longitudeOutOfRange] == [7])
        #expect(rep.examples[.latitudeOutOfRange] == [8])
        #expect(rep.examples[.notANumber] == [9])
        #expect(rep.examples[.malformedRow] == [10])
        // Said as GeoJSON has it: a feature, not a row.
        #expect(rep.warnings().contains { $0.hasSuffix("skipped 1 feature: malformed feature (feature 10)") })
        #expect(rep.examples[.nonFinite] == [11])
        #expect(rep.pointsRead == 5)
    }

    @Test func singleFeatureBarePointAndMultiPoint() throws {
        let one = try F.readFixture("single_feature.geojson")
        #expect(one.points.count == 1)
        #expect(one.points.lon == [-9.1393] && one.points.lat == [38.7223])
        #expect(one.points.ids == [.number(42)])
        #expect(one.points.properties.value("name", row: 0) == .string("Lisboa"))
        #expect(one.report.recordsRead == 1)

        let bare = try F.readFixture("bare_point.geojson")
        #expect(bare.points.count == 1 && bare.points.lat == [35.6895])
        #expect(bare.points.ids.isEmpty && bare.points.properties.names.isEmpty)

        let multi = try F.readFixture("multipoint.geojson")
        #expect(multi.points.count == 3)
        #expect(multi.points.ids == [.string("mp"), .string("mp"), .string("mp")])
        #expect(multi.points.properties.columns == [[.string("stations"), .string("stations"), .string("stations")]])
        #expect(multi.report.recordsRead == 1)
    }

    /// A feature with two `geometry` (or `properties`) members: the last one wins, as in RFC 8259
    /// parsers (it gave two points), with a warning naming the feature; lines too.
    @Test func duplicateMembersTheLastOneWins() throws {
        let json = #"""
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"a"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[10,20]},"properties":{"name":"old","x":1},
         "geometry":{"type":"Point","coordinates":[30,40]},"properties":{"name":"new"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[5,6]},
         "geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{}}
        ]}
        """#
        var o = InputOptions()
        o.keepShapes = true
        let r = try read(json, options: o)
        #expect(r.points.lon == [1, 30] && r.points.lat == [2, 40])
        let name = try #require(r.points.properties.names.firstIndex(of: "name"))
        #expect(r.points.properties.columns[name].map { "\($0)" }.last?.contains("new") == true)
        if let x = r.points.properties.names.firstIndex(of: "x") {
            #expect(r.points.properties.columns[x].allSatisfy { if case .missing = $0 { return true } else { return false } })
        }
        #expect(r.shapes.shapeCount == 1)
        #expect(r.report.duplicateMembers == 3)
        #expect(r.report.warnings().contains("t.geojson: 3 members given twice in a feature (first: \"geometry\" in feature 1); the last of each is used"))
    }

    @Test func malformedJSONHasLineAndColumn() {
        let path = F.fixture("bad.geojson")
        let e = F.error { _ = try PointReader.read(path: path, options: InputOptions()) }
        #expect(e?.kind == .inputMalformed)
        #expect(e?.message == "\(path):3:22: expected ',' or '}' in object, found '\"'")
    }

    @Test(arguments: [
        ("", "t.geojson:1:1: unexpected end of input; expected a GeoJSON object"),
        ("{\"type\":\"Point\",\"coordinates\":[1,2]", "t.geojson:1:36: unexpected end of input; expected ',' or '}' in object"),
        ("{\"type\":\"FeatureCollection\",\"features\":[1,]}", "t.geojson:1:43: expected a value, found ']'"),
        ("{\"type\":\"Point\",\n\"coordinates\":[1,2],\n\"x\":\"abc}", "t.geojson:3:5: unterminated string"),
        ("{\"type\":\"Point\",\"coordinates\":[1,02]}", "t.geojson:1:34: invalid number"),
        ("{\"type\":\"Point\",\"coordinates\":[1,2]} x", "t.geojson:1:38: expected end of input after the GeoJSON object, found 'x'"),
        ("{\"type\":\"Topology\",\"objects\":{}}", "t.geojson:1:9: unknown GeoJSON type 'Topology'"),
        ("{\"name\":\"x\"}", "t.geojson:1:1: not a GeoJSON object: no \"type\" member"),
        ("{\"a\" 1}", "t.geojson:1:6: expected ':' after object key, found '1'"),
        ("{\"s\":\"\\q\"}", "t.geojson:1:7: invalid escape in string"),
        ("{\"type\":\"Point\",\"coordinates\":[1,2]}\n{\"é\":tru}", "t.geojson:2:6: expected a value, found 't'"),
    ])
    func malformedJSONMessages(json: String, message: String) {
        let e = F.error { _ = try read(json) }
        #expect(e?.kind == .inputMalformed)
        #expect(e?.message == message)
    }

    @Test func sniffedWithoutExtension() throws {
        let r = try PointReader.read(path: F.fixture("sniffed_geojson"), options: InputOptions())
        #expect(r.report.format == "geojson")
        #expect(r.points.count == 1 && r.points.lon == [1] && r.points.lat == [2])
    }

    @Test func idFieldAndKeptProperties() throws {
        var options = InputOptions()
        options.idField = "code"
        options.keepProperties = ["name"]
        let json = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","id":1,"properties":{"code":"X1","name":"a","other":[1,2]},"geometry":{"type":"Point","coordinates":[1,1]}},
         {"type":"Feature","id":2,"properties":{"name":"b"},"geometry":{"type":"Point","coordinates":[2,2]}}]}
        """
        let r = try read(json, options: options)
        #expect(r.points.ids == [.string("X1"), .missing])
        #expect(r.points.properties.names == ["name"])

        options.keepProperties = []
        options.idField = nil
        let bare = try read(json, options: options)
        #expect(bare.points.ids == [.number(1), .number(2)])
        #expect(bare.points.properties.names.isEmpty && bare.points.properties.rowCount == 2)
    }

    @Test func escapesAndNonStandardNumbers() throws {
        let json = #"{"type":"Feature","properties":{"s":"\ud83d\ude00 \u00e9\n\/","nan":NaN,"big":1e400,"neg":-0.5e-3},"geometry":{"type":"Point","coordinates":[1e1,-2E-1]}}"#
        let r = try read(json)
        #expect(r.points.lon == [10] && r.points.lat == [-0.2])
        #expect(r.points.properties.value("s", row: 0) == .string("😀 é\n/"))
        #expect(r.points.properties.value("nan", row: 0) == .null)
        #expect(r.points.properties.value("big", row: 0) == .null)
        #expect(r.points.properties.value("neg", row: 0) == .number(-0.0005))
    }

    @Test func sequencesArraysAndOddShapes() throws {
        // One feature per line (GeoJSON text sequence without separators).
        let seq = """
        {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"i":0}}
        {"type":"Feature","geometry":{"type":"Point","coordinates":[3,4]},"properties":{"i":1}}
        """
        let s = try read(seq)
        #expect(s.points.count == 2 && s.report.recordsRead == 2)
        // A top-level array mixing a feature, a bare geometry and junk.
        let arr = #"[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]}}, {"type":"Point","coordinates":[5,6]}, 7, {"type":"MultiPoint","coordinates":[]}]"#
        let a = try read(arr)
        #expect(a.points.lon == [1, 5])
        #expect(a.report.examples[.malformedRow] == [2])
        #expect(a.report.examples[.emptyCoordinate] == [3])
        // A Feature without a geometry member counts as a null geometry; coordinates given as text.
        let odd = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{}},{"type":"Feature","geometry":{"type":"Point","coordinates":["",1]}}]}"#
        let o = try read(odd)
        #expect(o.report.examples[.nullGeometry] == [0])
        #expect(o.report.examples[.emptyCoordinate] == [1])
        #expect(o.report.skippedGeometries == ["null": 1])
    }

    @Test func nestedCollectionsAndDeferredGeometries() throws {
        let json = #"{"geometries":[{"coordinates":[[1,2],[3,4]],"type":"MultiPoint"},{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[9,9]}]}],"type":"GeometryCollection"}"#
        let r = try read(json)
        #expect(r.points.lon == [1, 3, 9])
        #expect(r.report.recordsRead == 1)
    }

    @Test func wrapLongitude() throws {
        var options = InputOptions()
        options.wrapLongitude = true
        let r = try read(#"{"type":"MultiPoint","coordinates":[[350,1],[361,1],[-181,1]]}"#, options: options)
        #expect(r.points.lon == [-10])
        #expect(r.report.skipped == [.longitudeOutOfRange: 2])
    }

    @Test func shapesFromMixedFile() throws {
        let shapes = try ShapeReader.read(path: F.fixture("mixed.geojson"))
        #expect(shapes.kinds == [.line, .polygon, .line])
        #expect(shapes.feature == [2, 3, 5])
        #expect(shapes.vertexCount == 2 + 4 + 2)
        #expect(Array(shapes.coords[12..<16]) == [0, 0, 2, 2])
    }

    @Test func shapeErrors() {
        let e = F.error {
            _ = try ShapeReader.read(data: Data(#"{"type":"LineString","coordinates":[[0,0],[1]]}"#.utf8), name: "s.geojson")
        }
        #expect(e?.message == "s.geojson:1:43: position needs longitude and latitude")
        let missing = F.error { _ = try ShapeReader.read(path: "/nonexistent/s.geojson") }
        #expect(missing?.kind == .inputUnreadable)
    }
}
