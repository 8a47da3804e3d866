import Foundation

/// Which CSV columns hold a track's id, time and position.
///
/// Names match case-insensitively. Left nil, they are found the way the point reader finds
/// them: `id`; `time`, `timestamp`, `datetime` or `date`; `lat`, `latitude` or `y`; `lon`,
/// `lng`, `long`, `longitude` or `x`.
public struct TrackColumns: Sendable, Equatable {
    public var id: String?
    public var time: String?
    public var lat: String?
    public var lon: String?
    /// Field delimiter; nil: the most frequent of `,` `;` tab in the header line.
    public var delimiter: UInt8?
    /// Accept longitudes in 180...360 (shifted by -360), as `InputOptions.wrapLongitude`.
    public var wrapLongitude = false

    public init(id: String? = nil, time: String? = nil, lat: String? = nil, lon: String? = nil,
                delimiter: UInt8? = nil, wrapLongitude: Bool = false) {
        self.id = id; self.time = time; self.lat = lat; self.lon = lon
        self.delimiter = delimiter
        self.wrapLongitude = wrapLongitude
    }
}

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
        let head = try source.peek(64 * 1024)
        var start = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            var drop = [UInt8](repeating: 0, count: 3)
            _ = try drop.withUnsafeMutableBufferPointer { try source.read(into: $0.baseAddress!, capacity: 3) }
            start = 3
        }
        let delimiter = columns.delimiter ?? CSVReader.detectDelimiter(Self.firstLine(head[start...]))
        decimalComma = delimiter != UInt8(ascii: ",")
        let splitter = CSVTokenizer(delimiter: delimiter)

        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, chunkSize))
        defer { chunk.deallocate() }
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

    /// The header line (up to the first line break outside quotes).
    private static func firstLine(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var inQuotes = false
        for i in bytes.indices {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { inQuotes.toggle() }
            else if !inQuotes && (b == 0x0A || b == 0x0D) { return bytes[bytes.startIndex..<i] }
        }
        return bytes
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
        let names = (0..<r.fieldCount).map { r.string($0).trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
        header = names
        let lowered = names.map { $0.lowercased() }
        let shown = MessageText.header(names, lineBytes: names.reduce(max(0, names.count - 1)) { $0 + $1.utf8.count })

        func column(_ given: String?, _ candidates: [String], _ role: String, _ flag: String) throws -> Int {
            if let given {
                guard let k = lowered.firstIndex(of: given.lowercased()) else {
                    throw MapRenderError(.inputMalformed,
                        "\(name): no column named '\(given)' for the \(role); \(shown)")
                }
                return k
            }
            for c in candidates { if let k = lowered.firstIndex(of: c) { return k } }
            throw MapRenderError(.inputMalformed,
                "\(name): no \(role) column found; \(shown) (use \(flag))")
        }
        idIndex = try column(columns.id, ["id"], "id", "--id-field")
        timeIndex = try column(columns.time, ["time", "timestamp", "datetime", "date"], "time", "--time-field")
        latIndex = try column(columns.lat, ["lat", "latitude", "y"], "latitude", "--lat")
        lonIndex = try column(columns.lon, ["lon", "lng", "long", "longitude", "x"], "longitude", "--lon")
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

/// Ids as the point readers make them (a JSON-style number is a number, other text a string),
/// each given a dense index; remembers the last id's bytes, since rows of one track usually
/// come together.
struct TrackIDInterner {
    private(set) var ids: [PropertyValue] = []
    private var indexByID: [PropertyValue: Int] = [:]
    private var lastBytes: [UInt8] = []
    private var lastIndex = -1

    var count: Int { ids.count }

    /// The index of the id in these bytes, adding it when new (`isNew` tells).
    mutating func index(_ p: UnsafePointer<UInt8>, _ n: Int) -> (index: Int, isNew: Bool) {
        if lastIndex >= 0 && lastBytes.count == n && memcmp(lastBytes, p, n) == 0 {
            return (lastIndex, false)
        }
        let id: PropertyValue
        if let d = FastNumber.parseJSONStyleNumber(p, n) {
            id = .number(d)
        } else {
            id = .string(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        }
        lastBytes = Array(UnsafeBufferPointer(start: p, count: n))
        if let k = indexByID[id] {
            lastIndex = k
            return (k, false)
        }
        lastIndex = ids.count
        indexByID[id] = ids.count
        ids.append(id)
        return (lastIndex, true)
    }
}
