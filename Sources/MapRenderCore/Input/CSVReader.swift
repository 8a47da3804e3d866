/// Streaming RFC 4180 CSV → points: a byte-level state machine fed one chunk at a time.
///
/// The file is never held whole: each chunk (1 MiB by default) runs through the state machine,
/// which copies the current record's field bytes (quotes removed, `""` unescaped) into one
/// reused buffer. A record can therefore span any number of chunks. When a record ends, its
/// latitude and longitude are parsed straight from that buffer (`FastNumber`); a `String` is
/// made only for the id and for property columns that are kept.
///
/// Handles: quoted fields holding delimiters, doubled quotes and line breaks; CRLF, LF and CR
/// line ends; a UTF-8 byte order mark; a missing final newline; blank lines (skipped).
///
/// Hot stored properties are `@exclusivity(unchecked)`: a reader is used by one thread, and the
/// runtime access checks on them cost about a fifth of the parse time.
final class CSVReader {
    static let defaultChunkSize = 1 << 20   // bytes per read(2)

    private let options: InputOptions
    private let name: String                // for messages
    @exclusivity(unchecked) private var report: InputReport
    @exclusivity(unchecked) private var points = PointSet()

    // MARK: Tokenizer state

    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }
    @exclusivity(unchecked) private var state = State.fieldStart
    @exclusivity(unchecked) private var delimiter = UInt8(ascii: ",")
    /// A CR ended the last record: a LF right after it belongs to the same line break.
    @exclusivity(unchecked) private var skipLF = false
    /// Inside quotes the previous byte was a CR (so a LF is not a second line break).
    @exclusivity(unchecked) private var previousCRInQuotes = false
    /// The 1-based physical line of the next byte, and the line the current record started on.
    @exclusivity(unchecked) private var line = 1
    @exclusivity(unchecked) private var recordLine = 1
    @exclusivity(unchecked) private var recordHadQuote = false

    /// The current record: field bytes back to back; `fieldEnds[k]` is where field k ends.
    @exclusivity(unchecked) private var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var bytesCapacity = 4096
    @exclusivity(unchecked) private var bytesCount = 0
    @exclusivity(unchecked) private var fieldEnds: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var fieldEndsCapacity = 64
    @exclusivity(unchecked) private var fieldCount = 0

    // MARK: Column plan, fixed by the header

    private var header: [String]?
    @exclusivity(unchecked) private var latIndex = 0
    @exclusivity(unchecked) private var lonIndex = 0
    @exclusivity(unchecked) private var idIndex = -1                 // -1: no id column
    @exclusivity(unchecked) private var anyID = false
    /// (CSV column, property column) for every kept property.
    @exclusivity(unchecked) private var propertyColumns: [(csv: Int, target: Int)] = []
    @exclusivity(unchecked) private var rowValues: [PropertyValue] = []
    @exclusivity(unchecked) private var decimalComma = false

    init(name: String, options: InputOptions) {
        self.name = ByteSource.displayName(name)
        self.options = options
        report = InputReport(source: name)
        report.format = "csv"
        bytes = .allocate(capacity: bytesCapacity)
        fieldEnds = .allocate(capacity: fieldEndsCapacity)
    }

    deinit {
        bytes.deallocate()
        fieldEnds.deallocate()
    }

    /// Reads the whole source, `chunkSize` bytes at a time.
    func read(_ source: ByteSource, chunkSize: Int = defaultChunkSize) throws -> LoadedPoints {
        let chunkSize = max(1, chunkSize)
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: max(chunkSize, 3))
        defer { chunk.deallocate() }

        // A UTF-8 byte order mark is not part of the first column's name.
        if try source.peek(3) == [0xEF, 0xBB, 0xBF] {
            _ = try source.read(into: chunk, capacity: 3)
        }

        // Without a given delimiter, read until the header line is complete and count in it.
        var headerBytes: [UInt8] = []
        if let d = options.delimiter {
            delimiter = d
        } else {
            var inQuotes = false
            var scanned = 0
            var lineEnd: Int?
            while lineEnd == nil {
                let n = try source.read(into: chunk, capacity: chunkSize)
                if n == 0 { break }
                headerBytes.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n))
                while scanned < headerBytes.count {
                    let b = headerBytes[scanned]
                    if b == UInt8(ascii: "\"") {
                        inQuotes.toggle()
                    } else if !inQuotes && (b == 0x0A || b == 0x0D) {
                        lineEnd = scanned
                        break
                    }
                    scanned += 1
                }
            }
            delimiter = Self.detectDelimiter(headerBytes[..<(lineEnd ?? headerBytes.count)])
        }
        decimalComma = delimiter != UInt8(ascii: ",")

        try headerBytes.withUnsafeBufferPointer { buf in
            if let base = buf.baseAddress { try feed(base, buf.count) }
        }
        while true {
            let n = try source.read(into: chunk, capacity: chunkSize)
            if n == 0 { break }
            try feed(chunk, n)
        }
        try finish()

        if idIndex >= 0 && !anyID { points.ids = [] }
        report.pointsRead = points.count
        return LoadedPoints(points: points, report: report)
    }

    /// The most frequent of comma, semicolon and tab outside quotes (ties in that order).
    static func detectDelimiter(_ line: ArraySlice<UInt8>) -> UInt8 {
        var counts = [0, 0, 0]
        let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09]
        var inQuotes = false
        for b in line {
            if b == UInt8(ascii: "\"") { inQuotes.toggle(); continue }
            if inQuotes { continue }
            if let k = candidates.firstIndex(of: b) { counts[k] += 1 }
        }
        var best = 0
        for k in 1..<3 where counts[k] > counts[best] { best = k }
        return candidates[best]
    }

    // MARK: The state machine

    private static let lf: UInt8 = 0x0A
    private static let cr: UInt8 = 0x0D
    private static let quote = UInt8(ascii: "\"")

    /// Runs `n` bytes through the state machine; records are handled as they complete.
    func feed(_ p: UnsafePointer<UInt8>, _ n: Int) throws {
        let delim = delimiter
        let lf = Self.lf, cr = Self.cr, quote = Self.quote
        var i = 0
        while i < n {
            if skipLF {
                skipLF = false
                if p[i] == lf { i += 1; continue }
            }
            switch state {
            case .fieldStart, .unquoted:
                if state == .fieldStart && p[i] == quote {
                    state = .quoted
                    recordHadQuote = true
                    i += 1
                    continue
                }
                // Fast scan to the end of an unquoted field.
                var j = i
                while j < n {
                    let c = p[j]
                    if c == delim || c == lf || c == cr { break }
                    j += 1
                }
                append(p + i, j - i)
                if j == n {
                    state = .unquoted
                    return
                }
                let c = p[j]
                i = j + 1
                if c == delim {
                    endField()
                    state = .fieldStart
                } else {
                    try endRecord(lineBreak: c)
                }
            case .quoted:
                var j = i
                var prevCR = previousCRInQuotes
                while j < n {
                    let c = p[j]
                    if c == quote { break }
                    if c == lf {
                        if !prevCR { line += 1 }
                        prevCR = false
                    } else if c == cr {
                        line += 1
                        prevCR = true
                    } else {
                        prevCR = false
                    }
                    j += 1
                }
                previousCRInQuotes = prevCR
                append(p + i, j - i)
                if j == n { return }
                previousCRInQuotes = false
                state = .quoteInQuoted
                i = j + 1
            case .quoteInQuoted:
                let c = p[i]
                if c == quote {                 // "" inside quotes: one quote
                    appendByte(quote)
                    state = .quoted
                    i += 1
                } else if c == delim {
                    endField()
                    state = .fieldStart
                    i += 1
                } else if c == lf || c == cr {
                    i += 1
                    try endRecord(lineBreak: c)
                } else {
                    state = .unquoted           // `"ab"cd`: text after the closing quote is kept
                }
            }
        }
    }

    /// End of input: the last record may lack its line break.
    func finish() throws {
        if state == .quoted {
            throw MapRenderError(.inputMalformed,
                "\(name):\(recordLine): quoted field is not closed before the end of the file")
        }
        if state != .fieldStart || fieldCount > 0 || recordHadQuote {
            try endRecord(lineBreak: nil)
        }
        if header == nil {
            throw MapRenderError(.inputMalformed, "\(name): no header row (the file is empty)")
        }
    }

    @inline(__always)
    private func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if n == 0 { return }
        if bytesCount + n > bytesCapacity { growBytes(bytesCount + n) }
        (bytes + bytesCount).update(from: p, count: n)
        bytesCount += n
    }

    @inline(__always)
    private func appendByte(_ b: UInt8) {
        if bytesCount == bytesCapacity { growBytes(bytesCount + 1) }
        bytes[bytesCount] = b
        bytesCount += 1
    }

    private func growBytes(_ needed: Int) {
        var capacity = bytesCapacity * 2
        while capacity < needed { capacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: bytes, count: bytesCount)
        bytes.deallocate()
        bytes = grown
        bytesCapacity = capacity
    }

    @inline(__always)
    private func endField() {
        if fieldCount == fieldEndsCapacity {
            let grown = UnsafeMutablePointer<Int>.allocate(capacity: fieldEndsCapacity * 2)
            grown.update(from: fieldEnds, count: fieldCount)
            fieldEnds.deallocate()
            fieldEnds = grown
            fieldEndsCapacity *= 2
        }
        fieldEnds[fieldCount] = bytesCount
        fieldCount += 1
    }

    private func endRecord(lineBreak: UInt8?) throws {
        endField()
        if !(fieldCount == 1 && !recordHadQuote && isBlank(field: 0)) {
            if header == nil {
                try handleHeader()
            } else {
                handleRow()
            }
        }
        bytesCount = 0
        fieldCount = 0
        recordHadQuote = false
        state = .fieldStart
        if let lineBreak {
            line += 1
            skipLF = lineBreak == Self.cr
        }
        recordLine = line
    }

    // MARK: Records

    @inline(__always)
    private func fieldStart(_ k: Int) -> Int { k == 0 ? 0 : fieldEnds[k - 1] }

    private func isBlank(field k: Int) -> Bool {
        for i in fieldStart(k)..<fieldEnds[k] where bytes[i] != 0x20 && bytes[i] != 0x09 { return false }
        return true
    }

    private func string(field k: Int) -> String {
        let start = fieldStart(k)
        return String(decoding: UnsafeBufferPointer(start: bytes + start, count: fieldEnds[k] - start), as: UTF8.self)
    }

    /// A property or id value: empty → missing, a JSON-style number → number, else the text.
    @inline(__always)
    private func value(field k: Int) -> PropertyValue {
        let start = fieldStart(k)
        let count = fieldEnds[k] - start
        if count == 0 { return .missing }
        if let d = FastNumber.parseJSONStyleNumber(bytes + start, count) { return .number(d) }
        return .string(String(decoding: UnsafeBufferPointer(start: bytes + start, count: count), as: UTF8.self))
    }

    @inline(__always)
    private func coordinate(field k: Int) -> CoordinateParse {
        let start = fieldStart(k)
        return FastNumber.parseCoordinate(bytes + start, fieldEnds[k] - start, decimalComma: decimalComma)
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ s: String) -> String {
        var t = Substring(s)
        while let c = t.first, c == " " || c == "\t" { t.removeFirst() }
        while let c = t.last, c == " " || c == "\t" { t.removeLast() }
        return String(t)
    }

    private func handleHeader() throws {
        let names = (0..<fieldCount).map { Self.trimmed(string(field: $0)) }
        header = names
        let lowered = names.map { $0.lowercased() }
        var shown = names.prefix(30).joined(separator: ", ")
        if names.count > 30 { shown += ", ..." }

        func column(named wanted: String, for role: String) throws -> Int {
            guard let k = lowered.firstIndex(of: wanted.lowercased()) else {
                throw MapRenderError(.inputMalformed,
                    "\(name): no column named '\(wanted)' for the \(role); header is: \(shown)")
            }
            return k
        }
        func detect(_ candidates: [String]) -> Int? {
            for c in candidates { if let k = lowered.firstIndex(of: c) { return k } }
            return nil
        }

        let lat = try options.latField.map { try column(named: $0, for: "latitude") }
            ?? detect(["lat", "latitude", "y"])
        let lon = try options.lonField.map { try column(named: $0, for: "longitude") }
            ?? detect(["lon", "lng", "long", "longitude", "x"])
        guard let lat, let lon else {
            throw MapRenderError(.inputMalformed,
                "\(name): no latitude/longitude columns found; header is: \(shown) (use --lat and --lon)")
        }
        guard lat != lon else {
            throw MapRenderError(.inputMalformed,
                "\(name): latitude and longitude cannot both be column '\(names[lat])'")
        }
        latIndex = lat
        lonIndex = lon
        report.latitudeColumn = names[lat]
        report.longitudeColumn = names[lon]

        // A column named `id` is the id (like a GeoJSON feature id, not a property). A column
        // chosen with `idField` is also kept as a property, so it can still be used for labels.
        var idIsProperty = true
        if let field = options.idField {
            idIndex = try column(named: field, for: "id")
        } else if let k = lowered.firstIndex(of: "id"), k != lat, k != lon {
            idIndex = k
            idIsProperty = false
        }

        for k in names.indices where k != lat && k != lon && (k != idIndex || idIsProperty) {
            if let keep = options.keepProperties, !keep.contains(names[k]) { continue }
            propertyColumns.append((k, points.properties.addColumn(names[k])))
        }
        rowValues = [PropertyValue](repeating: .missing, count: points.properties.names.count)
    }

    private func handleRow() {
        report.recordsRead += 1
        let n = fieldCount
        guard latIndex < n && lonIndex < n else {
            report.skip(.malformedRow, at: recordLine)
            return
        }
        let outcome = CoordinateCheck.check(lat: coordinate(field: latIndex), lon: coordinate(field: lonIndex),
                                            wrapLongitude: options.wrapLongitude)
        switch outcome {
        case .skip(let reason):
            report.skip(reason, at: recordLine)
            return
        case .point(let lat, let lon):
            points.lat.append(lat)
            points.lon.append(lon)
        }
        if idIndex >= 0 {
            let id = idIndex < n ? value(field: idIndex) : .missing
            if case .missing = id {} else { anyID = true }
            points.ids.append(id)
        }
        if propertyColumns.isEmpty {
            points.properties.appendEmptyRow()
        } else {
            for k in rowValues.indices { rowValues[k] = .missing }
            for (csv, target) in propertyColumns where csv < n {
                rowValues[target] = value(field: csv)
            }
            points.properties.appendRow(dense: rowValues)
        }
    }
}
