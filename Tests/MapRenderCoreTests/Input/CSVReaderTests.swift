import Foundation
import Testing
@testable import MapRenderCore

@Suite("CSV reader")
struct InputCSVReaderTests {
    typealias F = InputFixtures

    @Test func semicolonDelimiterAndDecimalCommas() throws {
        let r = try F.readFixture("semicolon.csv")
        let p = r.points
        #expect(p.count == 3)
        #expect(p.lat == [48.8566, 52.52, 48.2082])
        #expect(p.lon == [2.3522, 13.405, 16.3738])
        #expect(p.properties.value("note", row: 0) == .string("capital; France"))
        #expect(p.properties.value("note", row: 1) == .missing)
        // Properties are not read with decimal commas: "1,5" stays text.
        #expect(p.properties.value("note", row: 2) == .string("1,5"))
        #expect(p.ids.isEmpty)
        #expect(r.report.format == "csv")
    }

    @Test func tabsAndCaseInsensitiveColumns() throws {
        let r = try F.readFixture("tabs.tsv")
        #expect(r.points.count == 2)
        #expect(r.report.latitudeColumn == "Latitude")
        #expect(r.report.longitudeColumn == "Longitude")
        #expect(r.points.ids == [.string("a1"), .string("a2")])
        #expect(r.points.properties.names == ["Name", "Elevation"])
        #expect(r.points.properties.value("Elevation", row: 1) == .number(2962))
        #expect(r.points.lat[0] == 45.8326 && r.points.lon[1] == 10.9853)
    }

    @Test(arguments: [1, 2, 3, 5, 7, 16, CSVReader.defaultChunkSize])
    func quotedFieldsAtAnyChunkSize(chunkSize: Int) throws {
        let r = try F.readFixture("quoted.csv", chunkSize: chunkSize)
        let p = r.points
        #expect(p.count == 3)
        #expect(p.ids == [.number(1), .number(2), .number(3)])
        #expect(p.properties.value("name", row: 0) == .string("Smith, John"))
        #expect(p.properties.value("comment", row: 0) == .string("He said \"hi\""))
        #expect(p.properties.value("name", row: 1) == .string("two\nlines"))
        #expect(p.properties.value("comment", row: 1) == .string("crlf\r\ninside"))
        #expect(p.properties.value("comment", row: 2) == .string("a\"bc"))
        // Row 2 spans lines 3-5, so the bad row 4 starts on line 7.
        #expect(r.report.skipped == [.notANumber: 1])
        #expect(r.report.examples[.notANumber] == [7])
        #expect(r.report.recordsRead == 4)
    }

    @Test(arguments: [1, 2, 4, CSVReader.defaultChunkSize])
    func byteOrderMarkCRLFAndNoFinalNewline(chunkSize: Int) throws {
        let r = try F.readFixture("bom_crlf.csv", chunkSize: chunkSize)
        #expect(r.points.count == 2)
        #expect(r.points.properties.names == ["name"])
        #expect(r.points.properties.value("name", row: 0) == .string("Zürich"))
        #expect(r.points.properties.value("name", row: 1) == .string("São Paulo"))
        #expect(r.points.lat == [47.36667, -23.5475])
        #expect(r.points.lon == [8.55, -46.63611])
        #expect(r.report.recordsRead == 2)   // the blank CRLF line is not a record
    }

    @Test func everySkipReasonWithItsLine() throws {
        let r = try F.readFixture("invalid_coords.csv")
        let rep = r.report
        #expect(r.points.count == 2)
        #expect(r.points.lat == [10, 10.5])
        #expect(r.points.lon == [20, 20])
        #expect(rep.recordsRead == 12)
        #expect(rep.pointsRead == 2)
        #expect(rep.examples[.emptyCoordinate] == [3])
        #expect(rep.examples[.notANumber] == [4])
        #expect(rep.examples[.nonFinite] == [6, 7])
        #expect(rep.examples[.latitudeOutOfRange] == [8, 11])
        #expect(rep.examples[.longitudeOutOfRange] == [9, 14, 15])
        #expect(rep.examples[.malformedRow] == [10])
        #expect(rep.skippedTotal == 10)
        #expect(rep.warnings().contains("invalid_coords.csv: skipped 2 rows: coordinate is NaN or infinite (lines 6, 7)"))
        // Properties line up with the points that were kept.
        #expect(r.points.properties.value("name", row: 1) == .string("ok2"))
        #expect(r.points.properties.rowCount == 2)
    }

    @Test func wrapLongitude() throws {
        var options = InputOptions()
        options.wrapLongitude = true
        let r = try F.readFixture("invalid_coords.csv", options: options)
        #expect(r.points.count == 4)
        #expect(r.points.lon == [20, -179, 20, -90])   // 181 → -179, 270 → -90
        #expect(r.report.examples[.longitudeOutOfRange] == [14])   // 361 stays out of range
        let w = try F.readFixture("wrap.csv", options: options)
        #expect(w.points.lon == [-170, 0, -10])
    }

    @Test func wrapLongitudeNormalises181() throws {
        var options = InputOptions()
        options.wrapLongitude = true
        let r = try PointReader.read(data: Data("lat,lon\n0,181\n".utf8), name: "w.csv", options: options)
        #expect(r.points.lon == [-179])
    }

    @Test func noCoordinateColumns() {
        let e = F.error { _ = try F.readFixture("no_coords.csv") }
        #expect(e?.kind == .inputMalformed)
        #expect(e?.message == "no_coords.csv: no latitude/longitude columns found; header is: city, population, country (use --lat and --lon)")
    }

    @Test func explicitColumnsAreCaseInsensitiveAndChecked() throws {
        var options = InputOptions()
        options.latField = "POPULATION"
        options.lonField = "Country"
        let e = F.error { _ = try F.readFixture("no_coords.csv", options: options) }
        // The columns exist, so the error is about the values, reported per row.
        #expect(e == nil)
        options.latField = "lat_deg"
        let missing = F.error { _ = try F.readFixture("no_coords.csv", options: options) }
        #expect(missing?.message == "no_coords.csv: no column named 'lat_deg' for the latitude; header is: city, population, country")

        var xy = InputOptions()
        xy.latField = "Y"
        xy.lonField = "x"
        let r = try F.readFixture("xy_and_explicit.csv", options: xy)
        #expect(r.report.skipped == [.latitudeOutOfRange: 1])   // y = 200
        #expect(r.report.latitudeColumn == "y")
    }

    @Test func xyDetectedButExplicitNamesPreferred() throws {
        let xy = try F.readFixture("xy.csv")
        #expect(xy.points.lat == [48.86] && xy.points.lon == [2.35])
        #expect(xy.report.latitudeColumn == "y")
        let both = try F.readFixture("xy_and_explicit.csv")
        #expect(both.report.latitudeColumn == "latitude" && both.report.longitudeColumn == "longitude")
        #expect(both.points.lat == [48.86])
        #expect(both.points.properties.value("x", row: 0) == .number(100))
    }

    @Test func raggedRows() throws {
        let r = try F.readFixture("ragged.csv")
        #expect(r.points.count == 3)
        #expect(r.points.properties.value("name", row: 1) == .missing)
        #expect(r.points.properties.value("pop", row: 2) == .number(600))
        #expect(r.report.examples[.malformedRow] == [5])
    }

    @Test func keepPropertiesAndIdField() throws {
        var options = InputOptions()
        options.keepProperties = []
        let none = try PointReader.read(path: F.shared("world_cities_15000.csv"), options: options)
        #expect(none.points.properties.names.isEmpty)
        #expect(none.points.properties.rowCount == none.points.count)
        #expect(none.points.ids.count == 34006)

        options.keepProperties = ["name", "nope"]
        options.idField = "country"
        let cities = try PointReader.read(path: F.shared("world_cities_15000.csv"), options: options)
        // An explicitly chosen id column is still a property (here not kept), and `id` becomes a property.
        #expect(cities.points.properties.names == ["name"])
        #expect(cities.points.ids.first == .string("AD"))

        var byName = InputOptions()
        byName.idField = "Name"
        let tabs = try F.readFixture("tabs.tsv", options: byName)
        #expect(tabs.points.ids == [.string("Mont Blanc"), .string("Zugspitze")])
        #expect(tabs.points.properties.names == ["ID", "Name", "Elevation"])
    }

    @Test func explicitDelimiter() throws {
        var options = InputOptions()
        options.delimiter = UInt8(ascii: "|")
        let r = try PointReader.read(data: Data("lat|lon|a,b\n1|2|x,y\n".utf8), name: "p.txt", options: options)
        #expect(r.points.count == 1)
        #expect(r.points.properties.value("a,b", row: 0) == .string("x,y"))
    }

    @Test func numbersVersusText() throws {
        let csv = "lat,lon,a,b,c,d,e,f\n1,2,00M,0123,-0.5,1e3, 7 ,\n"
        let r = try PointReader.read(data: Data(csv.utf8), name: "n.csv", options: InputOptions())
        let v = { (name: String) in r.points.properties.value(name, row: 0) }
        #expect(v("a") == .string("00M"))
        #expect(v("b") == .string("0123"))
        #expect(v("c") == .number(-0.5))
        #expect(v("d") == .number(1000))
        #expect(v("e") == .number(7))
        #expect(v("f") == .missing)
    }

    @Test func unreadableAndEmptyInputs() throws {
        let missing = F.error { _ = try PointReader.read(path: "/nonexistent/x.csv", options: InputOptions()) }
        #expect(missing?.kind == .inputUnreadable)
        #expect(missing?.message == "cannot read /nonexistent/x.csv: No such file or directory")

        let dir = F.error { _ = try PointReader.read(path: F.fixtures.path, options: InputOptions()) }
        #expect(dir?.kind == .inputUnreadable)
        #expect(dir?.message.hasSuffix(": Is a directory") == true)

        let empty = F.error { _ = try PointReader.read(data: Data(), name: "e.csv", options: InputOptions()) }
        #expect(empty?.message == "e.csv: no header row (the file is empty)")

        let open = F.error {
            _ = try PointReader.read(data: Data("lat,lon,n\n1,2,x\n3,4,\"never closed\n5,6,y\n".utf8),
                                     name: "q.csv", options: InputOptions())
        }
        #expect(open?.kind == .inputMalformed)
        #expect(open?.message == "q.csv:3: quoted field is not closed before the end of the file")
    }

    @Test func headerOnlyAndBlankLines() throws {
        let r = try PointReader.read(data: Data("\n\nlat,lon\n\n\n".utf8), name: "h.csv", options: InputOptions())
        #expect(r.points.count == 0)
        #expect(r.report.recordsRead == 0)
        #expect(r.report.latitudeColumn == "lat")
    }

    @Test func crOnlyLineEndsCountLines() throws {
        let r = try PointReader.read(data: Data("lat,lon\r1,2\rx,2\r".utf8), name: "cr.csv", options: InputOptions())
        #expect(r.points.count == 1)
        #expect(r.report.examples[.notANumber] == [3])
    }

    /// A generated file with every awkward construct, read whole and in many small chunk sizes.
    @Test func chunkBoundariesDoNotChangeTheResult() throws {
        var text = "\u{FEFF}id;name;lat;lon;note\r\n"
        for i in 0..<300 {
            let name = i % 3 == 0 ? "\"N\(i); with \"\"quotes\"\"\r\nand a break\"" : "plain \(i) é"
            let lat = i % 17 == 5 ? "bad" : String(Double(i) * 0.25 - 37.5)
            text += "\(i);\(name);\(lat);\(Double(i) * 0.5 - 75);\(i % 5 == 0 ? "" : "n\(i)")\r\n"
            if i % 50 == 0 { text += "\r\n" }
        }
        let data = Data(text.utf8)
        let whole = try PointReader.read(data: data, name: "gen.csv", options: InputOptions(), chunkSize: 1 << 20)
        #expect(whole.points.count == 300 - 18)
        #expect(whole.points.properties.value("name", row: 0) == .string("N0; with \"quotes\"\r\nand a break"))
        for size in [1, 2, 3, 4, 5, 7, 11, 13, 64, 100, 4093] {
            let r = try PointReader.read(data: data, name: "gen.csv", options: InputOptions(), chunkSize: size)
            #expect(r.points.lat == whole.points.lat, "chunk size \(size)")
            #expect(r.points.lon == whole.points.lon, "chunk size \(size)")
            #expect(r.points.ids == whole.points.ids, "chunk size \(size)")
            #expect(r.points.properties.columns == whole.points.properties.columns, "chunk size \(size)")
            #expect(r.report == whole.report, "chunk size \(size)")
        }
    }

    @Test func delimiterDetection() {
        #expect(CSVHeader.detectDelimiter(ArraySlice("a,b;c;d".utf8)) == UInt8(ascii: ";"))
        #expect(CSVHeader.detectDelimiter(ArraySlice("\"a;b;c\",d".utf8)) == UInt8(ascii: ","))
        #expect(CSVHeader.detectDelimiter(ArraySlice("a\tb\tc".utf8)) == 0x09)
        #expect(CSVHeader.detectDelimiter(ArraySlice("single".utf8)) == UInt8(ascii: ","))
    }
}
