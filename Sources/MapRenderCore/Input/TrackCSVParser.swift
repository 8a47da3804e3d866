import Foundation

/// Streams a track CSV and hands every valid row to a callback as (id bytes, time, lat, lon).
///
/// Invalid rows are counted in a ``TrackReport`` with their line numbers, checked in this order:
/// too few fields (malformed row), bad coordinates (the point readers' `CoordinateCheck`),
/// bad time, empty id.
final class TrackCSVParser {
    typealias Sample = (_ id: UnsafePointer<UInt8>, _ idCount: Int, _ time: Double, _ lat: Double, _ lon: Double) -> Void

    private let columns: TrackColumns
    private let name: String
    private(set) var report: TrackReport
    private var header: [String]?
    private var idIndex = 0, timeIndex = 0, latIndex = 0, lonIndex = 0
    private var needed = 0
    private var decimalComma = false

    init(name: String, columns: TrackColumns) {
        self.name = ByteSource.displayName(name)
        self.columns = columns
        report = TrackReport(source: name)
    }

    static let chunkSize = 1 << 20

    func parse(_ source: ByteSource, chunkSize: Int = chunkSize, sample: Sample) throws {
        let size = max(3, chunkSize)
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { chunk.deallocate() }
        let (headerBytes, delimiter) = try CSVHeader.start(source, delimiter: columns.delimiter, chunk: chunk,
                                                           chunkSize: max(1, chunkSize))
        decimalComma = delimiter != UInt8(ascii: ",")
        let splitter = CSVTokenizer(delimiter: delimiter)
        try headerBytes.withUnsafeBufferPointer { buf in
            if let base = buf.baseAddress { try splitter.feed(base, buf.count) { try self.record($0, sample) } }
        }
        while true {
            let n = try source.read(into: chunk, capacity: max(1, chunkSize))
            if n == 0 { break }
            try splitter.feed(chunk, n) { try self.record($0, sample) }
        }
        let closed = try splitter.finish { try self.record($0, sample) }
        if !closed {
            throw MapRenderError(.inputMalformed,
                "\(name):\(splitter.recordLine): quoted field is not closed before the end of the file")
        }
        if header == nil {
            throw MapRenderError(.inputMalformed, "\(name): no header row (the file is empty)")
        }
    }

    private func record(_ r: CSVTokenizer, _ sample: Sample) throws {
        guard header != nil else {
            try handleHeader(r)
            return
        }
        report.input.recordsRead += 1
        let line = r.recordLine
        guard r.fieldCount >= needed else {
            report.input.skip(.malformedRow, at: line)
            return
        }
        let (latP, latN) = r.field(latIndex)
        let (lonP, lonN) = r.field(lonIndex)
        let outcome = CoordinateCheck.check(
            lat: FastNumber.parseCoordinate(latP, latN, decimalComma: decimalComma),
            lon: FastNumber.parseCoordinate(lonP, lonN, decimalComma: decimalComma),
            wrapLongitude: columns.wrapLongitude)
        guard case .point(let lat, let lon) = outcome else {
            if case .skip(let reason) = outcome { report.input.skip(reason, at: line) }
            return
        }
        let (timeP, timeN) = r.field(timeIndex)
        guard let time = TrackTime.parse(timeP, timeN) else {
            report.skipTime(at: line)
            return
        }
        let (idP, idN) = r.field(idIndex)
        guard idN > 0 else {
            report.skipID(at: line)
            return
        }
        report.input.pointsRead += 1
        sample(idP, idN, time, lat, lon)
    }

    private func handleHeader(_ r: CSVTokenizer) throws {
        let h = CSVHeader(r, file: name)
        let names = h.names
        header = names
        func column(_ given: String?, _ candidates: [String], _ role: String, _ flag: String) throws -> Int {
            if let given { return try h.column(named: given, for: role) }
            guard let k = h.detect(candidates) else {
                throw MapRenderError(.inputMalformed, "\(name): no \(role) column found; header is: \(h.shown) (use \(flag))")
            }
            return k
        }
        idIndex = try column(columns.id, ["id"], "id", "--id-field")
        timeIndex = try column(columns.time, ["time", "timestamp", "datetime", "date"], "time", "--time-field")
        (latIndex, lonIndex) = try h.coordinates(lat: columns.lat, lon: columns.lon)
        let all = [idIndex, timeIndex, latIndex, lonIndex]
        if Set(all).count < 4 {
            throw MapRenderError(.inputMalformed,
                "\(name): the id, time, latitude and longitude must be four different columns " +
                "(got \(all.map { "'\(names[$0])'" }.joined(separator: ", ")))")
        }
        needed = all.max()! + 1
        report.idColumn = names[idIndex]
        report.timeColumn = names[timeIndex]
        report.input.latitudeColumn = names[latIndex]
        report.input.longitudeColumn = names[lonIndex]
    }
}
