import Foundation
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// The up-front memory estimate counts CSV rows, and input of unknown size is bounded as it is read.
@Suite struct RenderBoundsTests {
    @Test func csvRowsAreEstimatedFromTheHeadAndTheSize() {
        let whole = Array("lat,lon\n1,2\n3,4\n5,6".utf8)
        #expect(RenderBounds.estimatedRows(size: whole.count, head: whole) == 3)
        #expect(RenderBounds.estimatedRows(size: whole.count + 1, head: whole + [0x0A]) == 3)
        #expect(RenderBounds.estimatedRows(size: 0, head: []) == 0)
        // A head of 4 lines of 8 bytes from a file of 8000 bytes: 1000 lines, one the header.
        let head = Array("lat,lon\n".utf8) + Array(repeating: Array("1.5,2.5\n".utf8), count: 3).flatMap { $0 }
        #expect(RenderBounds.estimatedRows(size: 8000, head: head) == 999)
        // One endless line after the header.
        #expect(RenderBounds.estimatedRows(size: 10 << 30, head: [UInt8](repeating: 0x41, count: 65536)) == 1)
    }

    @Test func theEstimateCountsCSVFilesAndPoints() throws {
        var r = RenderRequest()
        r.width = 100; r.height = 100
        r.inputs = [TestPaths.repoFile("samples/airports_us.csv")]
        let e = RenderBounds.estimate(r)
        #expect(e.image == 120_000)
        #expect(e.geoJSON == 0)
        // 3376 rows in the file; estimated from its first 64 KiB.
        #expect(abs(e.csvRows - 3376) < 3376 / 20, "\(e.csvRows)")
        r.inputs = [TestPaths.repoFile("samples/populated_places.geojson")]
        #expect(RenderBounds.estimate(r).csvRows == 0)
        #expect(RenderBounds.estimate(r).geoJSON == 3 * 31719)   // the file's size
        r.points = PointSet()
        r.points!.lat = [1, 2]; r.points!.lon = [1, 2]
        #expect(RenderBounds.estimate(r).csvRows == 2)
        #expect(RenderBounds.estimate(r).geoJSON == 0)
    }

    @Test func aStreamedCSVStopsAtTheLimit() throws {
        var r = RenderRequest()
        r.width = 100; r.height = 100
        r.maxMemory = 1 << 20
        let limit = RenderBounds.readingLimit(r, pointsSoFar: 0)
        #expect(limit.bytes == (1 << 20) - 120_000)
        #expect(limit.maxPoints == 2321)
        var options = InputOptions()
        options.format = .csv
        options.memoryLimit = limit
        let rows = (0..<3000).map { "\(Double($0 % 80)),\(Double($0 % 170))\n" }.joined()
        #expect(throws: MapRenderError(.usage, "<stdin>: reading stopped at 2322 points (line 2323): at about 400 bytes each, they and the image would need more than the limit of 1 MB; --max-memory raises it")) {
            try PointReader.read(data: Data(("lat,lon\n" + rows).utf8), name: "-", options: options)
        }
        // Within the limit: read as before.
        let few = try PointReader.read(data: Data(("lat,lon\n" + rows.split(separator: "\n").prefix(2321).joined(separator: "\n")).utf8),
                                       name: "-", options: options)
        #expect(few.points.count == 2321)
    }

    /// GeoJSON is read whole: from standard input it stops at the bytes the limit leaves.
    @Test func aStreamedGeoJSONStopsAtTheLimit() throws {
        var options = InputOptions()
        options.format = .geojson
        options.memoryLimit = InputMemoryLimit(bytes: 3000, limitText: "more than the limit of 1 MB; --max-memory raises it")
        let features = (0..<40).map { #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[\#($0),1]}}"# }
        let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        #expect(text.utf8.count > 1000)
        #expect(throws: MapRenderError(.usage, "<stdin>: reading stopped at \(text.utf8.count) bytes of GeoJSON: parsed (about 3 times its size) with the image, it would need more than the limit of 1 MB; --max-memory raises it")) {
            try PointReader.read(data: Data(text.utf8), name: "-", options: options)
        }
        // `cluster` and `inspect` draw no image: the message leaves it out.
        options.memoryLimit!.withImage = false
        #expect(throws: MapRenderError(.usage, "<stdin>: reading stopped at \(text.utf8.count) bytes of GeoJSON: parsed (about 3 times its size), it would need more than the limit of 1 MB; --max-memory raises it")) {
            try PointReader.read(data: Data(text.utf8), name: "-", options: options)
        }
        options.memoryLimit!.bytes = 3 * text.utf8.count
        #expect(try PointReader.read(data: Data(text.utf8), name: "-", options: options).points.count == 40)
    }
}

