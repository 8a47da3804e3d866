import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Blocks parsed in two halves on two threads (`CSVReader.read(_:chunkSize:parallelFrom:)`) read
/// what one reader reads byte by byte: the same points, ids, properties, skipped rows with their
/// line numbers, invalid UTF-8 and memory-limit stop, on generated files with quotes, CRLF,
/// blank lines and bad rows scattered through them.
@Suite struct CSVHalvesTests {
    /// A CSV of `rows` rows from a seeded generator; `quotes` puts quoted fields (with commas,
    /// doubled quotes and line breaks inside) in about one row in 40.
    static func csv(seed: UInt64, rows: Int, quotes: Bool, crlf: Bool) -> Data {
        var rng = SeededRandom(seed: seed)
        func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        var out: [UInt8] = []
        let eol: [UInt8] = crlf ? [13, 10] : [10]
        out += Array("id,name,lat,lon,value".utf8) + eol
        for i in 0..<rows {
            let lat = Double(pick(170_000)) / 1000 - 85, lon = Double(pick(360_000)) / 1000 - 180
            var name = Array("p\(i)".utf8)
            var latText = Array(String(lat).utf8)
            switch pick(60) {
            case 0: latText = Array("95".utf8)                         // out of range
            case 1: latText = Array("north".utf8)                      // not a number
            case 2: latText = []                                       // missing
            case 3: name = [0x70, 0xFF, 0xFE]                          // invalid UTF-8
            case 4 where quotes: name = Array("\"Smith, \"\"J\"\"\nline two\"".utf8)
            case 5 where quotes: name = Array("\"a,b\"".utf8)
            default: break
            }
            let id: [UInt8] = pick(50) == 0 ? Array("x\(i)".utf8) : Array("\(i)".utf8)
            out += id + [44] + name + [44] + latText + [44] + Array(String(lon).utf8) + [44] + Array("\(pick(1000))".utf8)
            if pick(45) == 0 { out += eol }                             // a blank line
            if pick(80) == 0 { out = out + [44, 49] }                  // an extra field
            out += eol
        }
        if pick(2) == 0 { out.removeLast(eol.count) }                  // no final line break
        return Data(out)
    }

    static func read(_ data: Data, chunkSize: Int, parallelFrom: Int, options: InputOptions = InputOptions()) -> Result<LoadedPoints, MapRenderError> {
        Result {
            try CSVReader(name: "gen.csv", options: options)
                .read(ByteSource(data: data, name: "gen.csv"), chunkSize: chunkSize, parallelFrom: parallelFrom)
        }.mapError { $0 as! MapRenderError }
    }

    static func expectSame(_ a: Result<LoadedPoints, MapRenderError>, _ b: Result<LoadedPoints, MapRenderError>,
                           _ what: String) {
        switch (a, b) {
        case (.success(let a), .success(let b)):
            #expect(a.points.count == b.points.count, "\(what): points")
            #expect(a.points.lat == b.points.lat && a.points.lon == b.points.lon, "\(what): coordinates")
            #expect(a.points.ids == b.points.ids, "\(what): ids")
            #expect(a.points.properties.names == b.points.properties.names, "\(what): property names")
            for c in a.points.properties.columns.indices {
                #expect(a.points.properties.columns[c] == b.points.properties.columns[c], "\(what): column \(c)")
            }
            #expect(a.report == b.report, "\(what): report \(a.report.warnings()) / \(b.report.warnings())")
            #expect(a.namesOnly == b.namesOnly, "\(what): names only")
        case (.failure(let a), .failure(let b)):
            #expect(a.message == b.message, "\(what): errors")
        default:
            Issue.record("\(what): one read failed, the other did not: \(a) / \(b)")
        }
    }

    @Test(arguments: [(UInt64(1), false, false), (2, true, false), (3, false, true), (4, true, true)])
    func halvesReadAsOneReader(seed: UInt64, quotes: Bool, crlf: Bool) {
        let data = Self.csv(seed: seed, rows: 6000, quotes: quotes, crlf: crlf)
        let one = Self.read(data, chunkSize: 1 << 20, parallelFrom: .max)
        guard case .success(let loaded) = one else { Issue.record("the serial read failed: \(one)"); return }
        #expect(loaded.report.skippedTotal > 100 && loaded.report.invalidUTF8 > 10)
        for chunkSize in [700, 4096, 10_000] {
            Self.expectSame(one, Self.read(data, chunkSize: chunkSize, parallelFrom: 1), "chunks of \(chunkSize)")
        }
        var namesOnly = InputOptions()
        namesOnly.namesOnly = true
        Self.expectSame(Self.read(data, chunkSize: 1 << 20, parallelFrom: .max, options: namesOnly),
                        Self.read(data, chunkSize: 2000, parallelFrom: 1, options: namesOnly), "names only")
    }

    /// Reading stops at the same row with the same message when a memory limit is reached
    /// in the middle of the file.
    @Test(arguments: [UInt64(5), 6])
    func memoryLimitStopsAtTheSameRow(seed: UInt64) {
        let data = Self.csv(seed: seed, rows: 6000, quotes: false, crlf: false)
        var options = InputOptions()
        options.memoryLimit = InputMemoryLimit(bytes: 4321 * InputMemoryLimit.bytesPerPoint, limitText: "a test limit", withImage: false)
        let one = Self.read(data, chunkSize: 1 << 20, parallelFrom: .max, options: options)
        guard case .failure(let error) = one else { Issue.record("the limit did not stop the read"); return }
        #expect(error.message.contains("4322 points"))
        Self.expectSame(one, Self.read(data, chunkSize: 3000, parallelFrom: 1, options: options), "memory limit")
    }

    /// Without ids (a still map's read): the same points, properties and report, invalid UTF-8 in
    /// an id field counted as when kept; no ids.
    @Test func withoutIDsReadsTheSameElse() throws {
        let data = Self.csv(seed: 7, rows: 6000, quotes: true, crlf: false)
        var noIDs = InputOptions()
        noIDs.keepIDs = false
        for (chunkSize, parallelFrom) in [(1 << 20, Int.max), (3000, 1)] {
            let kept = try Self.read(data, chunkSize: chunkSize, parallelFrom: parallelFrom).get()
            let without = try Self.read(data, chunkSize: chunkSize, parallelFrom: parallelFrom, options: noIDs).get()
            #expect(kept.points.ids.count == kept.points.count && without.points.ids.isEmpty)
            var same = without
            same.points.ids = kept.points.ids
            Self.expectSame(.success(kept), .success(same), "without ids, chunks of \(chunkSize)")
        }
        // Only an id is not UTF-8.
        let bad = Data(Array("id,lat,lon\nok,1,2\n".utf8) + [0x78, 0xFF] + Array(",3,4\n".utf8))
        for options in [InputOptions(), noIDs] {
            let r = try Self.read(bad, chunkSize: 1 << 20, parallelFrom: .max, options: options).get()
            #expect(r.points.count == 2 && r.report.invalidUTF8 == 1 && r.report.firstInvalidUTF8 == 3)
        }
    }
}
