import Foundation
import Testing
@testable import MapRenderCore

/// `ByteSource.bytesLeft`, which the CSV reader sizes its columns from: what is left of a file or
/// of memory, bytes peeked at included; unknown for a pipe.
@Suite struct ByteSourceTests {
    static let text = Array("id,lat,lon\n1,10,20\n2,11,21\n3,12,22\n".utf8)

    func drain(_ source: ByteSource, _ count: Int) throws -> Int {
        var buffer = [UInt8](repeating: 0, count: count)
        return try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0.baseAddress!, capacity: count) }
    }

    @Test func memoryAndFilesTellWhatIsLeft() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bytesource-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(Self.text).write(to: URL(fileURLWithPath: path))
        for source in [try ByteSource(path: path), ByteSource(data: Data(Self.text), name: "mem.csv")] {
            #expect(source.bytesLeft == Self.text.count)
            _ = try source.peek(5)
            #expect(source.bytesLeft == Self.text.count, "peeked bytes are still to be read")
            // (A read hands out the peeked bytes first, then reads on.)
            var read = 0
            for size in [3, 10, 10, 7] {
                read += try drain(source, size)
                #expect(source.bytesLeft == Self.text.count - read)
            }
            while try drain(source, 7) > 0 {}
            #expect(source.bytesLeft == 0)
        }
    }

    @Test func aPipeDoesNotTell() throws {
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: Data(Self.text))
        let source = try ByteSource(path: "/proc/self/fd/\(pipe.fileHandleForReading.fileDescriptor)")
        #expect(source.bytesLeft == nil)
        #expect(try drain(source, 4) == 4)
    }

    /// Columns sized from the first block's rows: a file whose later rows are longer (fewer rows
    /// than estimated) or shorter (more) reads the same as in one chunk.
    @Test(arguments: [false, true])
    func rowsOfChangingLengthReadTheSame(longerLater: Bool) throws {
        var lines = ["id,name,lat,lon"]
        for i in 0..<3000 {
            let long = (i >= 1000) == longerLater
            lines.append("\(i),\(long ? String(repeating: "n", count: 60) : "s"),\(Double(i % 170) - 85),\(Double(i % 360) - 180)")
        }
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        let whole = try CSVReader(name: "a.csv", options: InputOptions())
            .read(ByteSource(data: data, name: "a.csv"), chunkSize: 1 << 22, parallelFrom: .max)
        let chunked = try CSVReader(name: "a.csv", options: InputOptions())
            .read(ByteSource(data: data, name: "a.csv"), chunkSize: 4096, parallelFrom: 1)
        #expect(whole.points.count == 3000 && chunked.points.count == 3000)
        #expect(whole.points.lat == chunked.points.lat && whole.points.lon == chunked.points.lon)
        #expect(whole.points.ids == chunked.points.ids)
    }
}
