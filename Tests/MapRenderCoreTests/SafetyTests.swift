import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Issue 14 in the core: bounded records, bounded labels, order-independent tracks, PNG headers
/// read without decoding, messages that never echo what is not a CSV header.
@Suite struct SafetyTests {
    // MARK: - Labels

    @Test func longLabelsAreCutWithAnEllipsis() {
        #expect(LabelText.truncated("Paris") == "Paris")
        let exact = String(repeating: "é", count: LabelText.maxCharacters)
        #expect(LabelText.truncated(exact) == exact)
        let long = String(repeating: "ab", count: 50_000)
        let cut = LabelText.truncated(long)
        #expect(cut.count == LabelText.maxCharacters + 1)
        #expect(cut.hasSuffix("…") && long.hasPrefix(cut.dropLast()))
        // Grapheme clusters are never split: a family emoji is one character.
        let family = String(repeating: "👨‍👩‍👧", count: 300)
        #expect(LabelText.truncated(family) == String(repeating: "👨‍👩‍👧", count: LabelText.maxCharacters) + "…")
    }

    // MARK: - CSV records

    @Test func aRowLongerThan16MiBIsSkippedNotKept() throws {
        var text = "lat,lon,name\n1,2,a\n"
        text += "3,4," + String(repeating: "x", count: CSVTokenizer.maxRecordBytes + 10) + "\n"
        text += "5,6,c\n"
        var options = InputOptions()
        options.format = .csv
        // Tiny chunks: the row spans thousands of reads and is dropped as it comes.
        let loaded = try PointReader.read(data: Data(text.utf8), name: "big.csv", options: options, chunkSize: 4096)
        #expect(loaded.points.count == 2)
        #expect(loaded.report.skipped[.recordTooLong] == 1)
        #expect(loaded.report.warnings() == ["big.csv: skipped 1 row: row longer than 16 MiB (line 3)"])
    }

    @Test func aFirstLineWithoutEndIsNotAHeader() throws {
        let data = Data(count: CSVTokenizer.maxRecordBytes + 2 << 20)   // zeros, no line break
        #expect(throws: MapRenderError(.inputMalformed, "zeros.csv: the first line is longer than 16 MiB: not a CSV header")) {
            _ = try PointReader.read(data: data, name: "zeros.csv", options: InputOptions(), chunkSize: 1 << 20)
        }
    }

    @Test func onlyARealCSVHeaderIsQuoted() {
        #expect(MessageText.header(["SECRET-TOKEN-123"], lineBytes: 16) == "the first line is not a CSV header (1 field, 16 bytes)")
        #expect(MessageText.header(["a", String(repeating: "k", count: 101)], lineBytes: 103)
                == "the first line is not a CSV header (2 fields, 103 bytes)")
        #expect(MessageText.header(["city", "pop\u{1B}[2J"], lineBytes: 12) == "header is: city, pop\\u{1B}[2J")
        #expect(MessageText.escaped("a\u{7}b\u{9B}c\td\ne") == "a\\u{7}b\\u{9B}c\td\\u{A}e")
        #expect(MessageText.escaped("x\ny", keepNewlines: true) == "x\ny")
    }

    // MARK: - Tracks

    func positions(_ csv: String) throws -> (x: [Double], y: [Double], report: TrackReport) {
        var reader = TrackReader(frameTimes: [0, 5, 10])
        let report = try reader.read(data: Data(csv.utf8), name: "t.csv")
        let frames = (0..<3).map { reader.positions(frame: $0, hold: true) }
        return (frames.flatMap(\.x), frames.flatMap(\.y), report)
    }

    @Test func duplicateSamplesGiveTheSameFramesInAnyRowOrder() throws {
        let rows = ["a,0,10,20", "a,5,11,21", "a,5,40,-30", "a,10,12,22"]
        let header = "id,time,lat,lon\n"
        let forward = try positions(header + rows.joined(separator: "\n") + "\n")
        let backward = try positions(header + rows.reversed().joined(separator: "\n") + "\n")
        #expect(forward.x == backward.x && forward.y == backward.y)
        // The smaller x (the western sample, lon -30) wins at t = 5.
        let west = WrappedMercator.project(lon: -30, lat: 40)
        #expect(forward.x[1] == west.x && forward.y[1] == west.y)
        #expect(forward.report.duplicateSamples == 1 && backward.report.duplicateSamples == 1)
        #expect(forward.report.warnings() == [
            "t.csv: 1 sample repeats the time of another of the same id (first: id a); the one with the smaller x, y is used, whatever the row order",
        ])
    }

    // MARK: - PNG headers

    @Test func pngHeadersAreCheckedWithoutDecoding() throws {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let t = Array(type.utf8)
            let crc = CRC32.checksum(t + body)
            return be(UInt32(body.count)) + t + body + be(crc)
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let sig: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let ihdr = chunk("IHDR", be(100_000) + be(3) + [8, 6, 0, 0, 0])
        let good = sig + ihdr + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
        #expect(try PNGHeader.read(Data(good), name: "g.png")
                == PNGHeader(width: 100_000, height: 3, bitDepth: 8, colorType: 6, interlaced: false))
        #expect(throws: MapRenderError(.inputMalformed, "n.png: not a PNG file")) { try PNGHeader.read(Data("%PDF".utf8), name: "n.png") }
        #expect(throws: MapRenderError(.inputMalformed, "c.png: corrupt PNG: the file ends at byte 33, before the IEND chunk")) {
            try PNGHeader.read(Data(sig + ihdr), name: "c.png")
        }
        #expect(throws: MapRenderError(.inputMalformed, "d.png: corrupt PNG: no image data (IDAT chunk)")) {
            try PNGHeader.read(Data(sig + ihdr + chunk("IEND", [])), name: "d.png")
        }
        var flipped = good
        flipped[20] ^= 1
        #expect(throws: MapRenderError(.inputMalformed, "f.png: corrupt PNG: chunk IHDR at byte 8 fails its CRC check")) {
            try PNGHeader.read(Data(flipped), name: "f.png")
        }
        let badDepth = sig + chunk("IHDR", be(1) + be(1) + [3, 6, 0, 0, 0]) + chunk("IEND", [])
        #expect(throws: MapRenderError(.inputMalformed, "b.png: corrupt PNG: invalid IHDR (colour type 6, bit depth 3)")) {
            try PNGHeader.read(Data(badDepth), name: "b.png")
        }
    }
}

extension SafetyTests {
    @Test func invalidUTF8IsReportedOnce() throws {
        var bytes = Array("lat,lon,name\n1,2,ok\n3,4,caf".utf8) + [0xE9] + Array("\n5,6,".utf8) + [0xFF, 0xFE] + [0x0A]
        bytes += Array("7,8,fine\n".utf8)
        var options = InputOptions()
        options.format = .csv
        let loaded = try PointReader.read(data: Data(bytes), name: "latin1.csv", options: options)
        #expect(loaded.points.count == 4)
        #expect(loaded.report.invalidUTF8 == 2)
        #expect(loaded.report.warnings() == ["latin1.csv: 2 text fields are not valid UTF-8 (first on line 3); the bad bytes are shown as U+FFFD"])
    }
}

extension SafetyTests {
    /// GeoJSON text kept as properties or ids: bad bytes become U+FFFD, counted once per file
    /// with the first feature (the CSV reader's warning, by feature index).
    @Test func invalidUTF8InGeoJSONIsCountedWithItsFeature() throws {
        var bytes = Array(#"{"type":"FeatureCollection","features":["#.utf8)
        bytes += Array(#"{"type":"Feature","id":1,"properties":{"name":"ok"},"geometry":{"type":"Point","coordinates":[1,2]}},"#.utf8)
        bytes += Array(#"{"type":"Feature","properties":{"name":"caf"#.utf8) + [0xE9]
        bytes += Array(#""},"geometry":{"type":"Point","coordinates":[3,4]}},"#.utf8)
        // A key and an id with bad bytes, one with an escape (the other decoding path).
        bytes += Array(#"{"type":"Feature","id":""#.utf8) + [0xFE] + Array(#"","properties":{"n"#.utf8) + [0xFF]
        bytes += Array(#"m\n":"x"},"geometry":{"type":"Point","coordinates":[5,6]}}]}"#.utf8)
        var options = InputOptions()
        options.format = .geojson
        let loaded = try PointReader.read(data: Data(bytes), name: "latin1.geojson", options: options)
        #expect(loaded.points.count == 3)
        #expect(loaded.points.properties.value("name", row: 1) == .string("caf\u{FFFD}"))
        #expect(loaded.report.invalidUTF8 == 3)
        #expect(loaded.report.firstInvalidUTF8 == 1)
        #expect(loaded.report.warnings() == ["latin1.geojson: 3 text fields are not valid UTF-8 (first on feature 1); the bad bytes are shown as U+FFFD"])

        // Properties that are not kept are skipped undecoded: nothing to warn about.
        options.keepProperties = ["other"]
        let skipped = try PointReader.read(data: Data(bytes), name: "latin1.geojson", options: options)
        // Still read: the id, and the key with an escape (decoded to be compared with "other").
        #expect(skipped.report.invalidUTF8 == 2)
        #expect(skipped.report.firstInvalidUTF8 == 2)
        options.keepProperties = []
        let none = try PointReader.read(data: Data(bytes), name: "latin1.geojson", options: options)
        #expect(none.report.invalidUTF8 == 1)   // the id alone: properties are skipped unread

        let clean = try PointReader.read(data: Data(#"{"type":"Point","coordinates":[1,2]}"#.utf8), name: "ok.geojson", options: InputOptions())
        #expect(clean.report.invalidUTF8 == 0)
        #expect(clean.report.warnings() == [])
    }
}
