import Foundation

/// Streaming RFC 4180 CSV → points, on `CSVTokenizer`.
///
/// The file is never held whole: each chunk (1 MiB by default) runs through the tokenizer. When
/// a record ends, its latitude and longitude are parsed straight from the tokenizer's buffer
/// (`FastNumber`); a `String` is made only for the id and for property columns that are kept.
/// Adds to the tokenizer: a UTF-8 byte order mark, delimiter detection, the header's column plan.
///
/// Hot stored properties are `@exclusivity(unchecked)`: a reader is used by one thread, and the
/// runtime access checks on them cost about a fifth of the parse time.
final class CSVReader {
    static let defaultChunkSize = 1 << 20   // bytes per read(2)

    private let options: InputOptions
    private let name: String                // for messages
    @exclusivity(unchecked) private var report: InputReport
    @exclusivity(unchecked) private var points = PointSet()
    /// Lines and polygons of a geometry column (`options.geometryColumn`), one property row each.
    @exclusivity(unchecked) private var shapes = ShapeSet()
    /// The first geometry that could not be read, with its line, for the warning.
    private var firstGeometryProblem: String?

    @exclusivity(unchecked) private var tokenizer = CSVTokenizer(delimiter: UInt8(ascii: ","))

    /// How the file's records are read: fixed by its first line (the delimiter, which the
    /// tokenizer holds) and its header (the columns), then the same for every record; a second
    /// reader (`helper`) takes a copy.
    struct Plan {
        var decimalComma = false
        /// The header's column names; nil until the header is read.
        var header: [String]?
        var latIndex = 0
        var lonIndex = 0
        var idIndex = -1                 // -1: no id column
        /// The geometry column (`options.geometryColumn`); -1: latitude and longitude columns.
        var geometryIndex = -1
        /// (CSV column, property column) for every kept property.
        var propertyColumns: [(csv: Int, target: Int)] = []
    }

    @exclusivity(unchecked) private var plan = Plan()
    @exclusivity(unchecked) private var anyID = false
    /// One value per property column, reused from row to row.
    @exclusivity(unchecked) private var rowValues: [PropertyValue] = []
    /// Points past which reading stops (`options.memoryLimit`).
    @exclusivity(unchecked) private var maxPoints = Int.max
    /// `options.namesOnly`: property fields are only checked for UTF-8, ids only counted.
    private let namesOnly: Bool
    /// `options.keepIDs`: else id fields are only checked for UTF-8.
    private let keepIDs: Bool
    @exclusivity(unchecked) private var pointsWithIDs = 0

    init(name: String, options: InputOptions) {
        self.name = ByteSource.displayName(name)
        self.options = options
        report = InputReport(source: name)
        report.format = "csv"
        maxPoints = options.memoryLimit?.maxPoints ?? .max
        namesOnly = options.namesOnly
        keepIDs = options.keepIDs
    }

    /// Reads the whole source, `chunkSize` bytes at a time.
    ///
    /// Each read ends at its last line break (the bytes after it wait for the next read), so
    /// that a block of whole lines with no quote in it can be parsed in two halves on two
    /// threads: the second half by a second reader with the same column plan (`helper`), whose
    /// points and report are then appended to this one's, line numbers moved on by the first
    /// half's lines. Only a quote can hide a line break inside a field, so without one every
    /// line break ends a record and the halves parse exactly as one reader would. Blocks of fewer
    /// than `parallelFrom` bytes, blocks with a quote, and blocks that might reach the memory limit
    /// (which stops at an exact row) are parsed on this thread.
    func read(_ source: ByteSource, chunkSize: Int = defaultChunkSize, parallelFrom: Int = 256 << 10) throws -> LoadedPoints {
        let chunkSize = max(1, chunkSize)
        // Room for a read and the end of the line before it.
        let capacity = 2 * max(chunkSize, 3)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }

        let (headerBytes, found) = try CSVHeader.start(source, file: name, delimiter: options.delimiter, chunk: buffer,
                                                       chunkSize: chunkSize)
        plan.decimalComma = found != UInt8(ascii: ",")
        tokenizer = CSVTokenizer(delimiter: found)

        try headerBytes.withUnsafeBufferPointer { buf in
            if let base = buf.baseAddress { try feed(base, buf.count) }
        }
        var carried = 0, fed = headerBytes.count, sized = false
        while true {
            let n = try source.read(into: buffer + carried, capacity: min(chunkSize, capacity - carried))
            let total = carried + n
            if n == 0 {
                if total > 0 { try feed(buffer, total) }
                break
            }
            // The block: up to the last line break, when what follows it fits the next read.
            var end = total
            if let lastLF = Self.lastLineFeed(buffer, total), total - (lastLF + 1) <= chunkSize {
                end = lastLF + 1
            }
            try feedBlock(buffer, end, parallelFrom: parallelFrom)
            fed += end
            carried = total - end
            if !sized, let left = source.bytesLeft {
                reserveRows(fed: fed, left: left + carried)
                sized = true
            }
            if carried > 0 { buffer.update(from: buffer + end, count: carried) }
        }
        try finish()

        if plan.idIndex >= 0 && !anyID { points.ids = [] }
        report.pointsRead = points.count
        report.geometryProblem = firstGeometryProblem
        if namesOnly {
            let names = LoadedPoints.NamesOnly(propertyNames: points.properties.names, pointsWithIDs: pointsWithIDs)
            points.properties = PropertyTable()
            points.ids = []
            return LoadedPoints(points: points, report: report, namesOnly: names)
        }
        return LoadedPoints(points: points, shapes: shapes, report: report)
    }

    /// Sizes the columns for the rows still to come, estimated from the rows in the `fed` bytes so
    /// far and the `left` bytes. Grown by doubling instead, 10M rows' latitudes, longitudes and
    /// ids were copied on every growth into fresh memory, which the kernel zeroes page by page
    /// (perf: about a tenth of the run's kernel samples under `handleRow`'s copies). Sized, the
    /// 10M clumps read went from 1.94 to 1.35 s (medians of 5) and its peak from 1485 to 1460 MB;
    /// 1M, from 230 to 206 ms. Room reserved beyond the rows read is never touched, so it costs
    /// no memory; a wrong estimate only grows the columns as before.
    private func reserveRows(fed: Int, left: Int) {
        guard fed > 0, points.count > 0, left > 0 else { return }
        // (Each point read took at least two of the `fed` bytes, so the estimate is below `left`;
        // no more than left / 2 + 1 rows with a point can follow, nor more than the memory limit.)
        let estimate = Int((Double(points.count) * Double(left) / Double(fed) * 1.05).rounded(.up)) + 1024
        let n = points.count + Swift.min(estimate, left / 2 + 1, Swift.max(0, maxPoints - points.count))
        points.lat.reserveCapacity(n)
        points.lon.reserveCapacity(n)
        if plan.idIndex >= 0 && !namesOnly && keepIDs { points.ids.reserveCapacity(n) }
    }

    /// The reader of a block's second half (see `read`), made once the header is read.
    private var helper: CSVReader?

    /// The position of the last line feed among the first `n` bytes (by hand: Swift's Glibc
    /// module does not import `memrchr`; the last line feed is a line from the end).
    private static func lastLineFeed(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int? {
        var i = n - 1
        while i >= 0 && p[i] != 0x0A { i -= 1 }
        return i >= 0 ? i : nil
    }

    /// Parses `n` bytes, in two halves on two threads when `read` says it may.
    private func feedBlock(_ p: UnsafeMutablePointer<UInt8>, _ n: Int, parallelFrom: Int) throws {
        // (A record with a point takes at least two bytes, so a block that cannot reach the
        // memory limit holds fewer than n / 2 records: then no row of it stops the reading.)
        // (A geometry column reads on one thread: its rows are few and long, and shapes are not merged.)
        guard n >= parallelFrom, !Work.serial, plan.header != nil, plan.geometryIndex < 0, points.count <= maxPoints - n / 2, tokenizer.atRecordStart,
              memchr(p, Int32(UInt8(ascii: "\"")), n) == nil,
              let lf = memchr(p + n / 2, 0x0A, n - n / 2) else {
            try feed(p, n)
            return
        }
        // The second half starts after a line break near the middle.
        let split = p.distance(to: lf.assumingMemoryBound(to: UInt8.self)) + 1
        if split >= n {
            try feed(p, n)
            return
        }
        let helper = self.helper ?? makeHelper()
        self.helper = helper
        let errors = UnsafeMutablePointer<(any Error)?>.allocate(capacity: 2)
        errors.initialize(repeating: nil, count: 2)
        defer {
            errors.deinitialize(count: 2)
            errors.deallocate()
        }
        Work.perform(iterations: 2) { half in
            do {
                if half == 0 { try self.feed(p, split) } else { try helper.feed(p + split, n - split) }
            } catch {
                errors[half] = error
            }
        }
        if let error = errors[0] ?? errors[1] { throw error }
        absorb(helper)
    }

    /// A reader with this one's plan, for the second half of blocks.
    private func makeHelper() -> CSVReader {
        let h = CSVReader(name: name, options: options)
        h.plan = plan
        h.tokenizer = CSVTokenizer(delimiter: tokenizer.delimiter)
        for name in points.properties.names { h.points.properties.addColumn(name) }
        h.rowValues = rowValues
        return h
    }

    /// Appends what `helper` read after this reader's last line (its lines counted from 1), and
    /// empties it for the next block.
    private func absorb(_ helper: CSVReader) {
        let lineOffset = tokenizer.line - 1
        points.lat.append(contentsOf: helper.points.lat)
        points.lon.append(contentsOf: helper.points.lon)
        points.ids.append(contentsOf: helper.points.ids)
        points.properties.append(contentsOf: helper.points.properties)
        report.append(helper.report, lineOffset: lineOffset)
        anyID = anyID || helper.anyID
        pointsWithIDs += helper.pointsWithIDs
        tokenizer.skipLines(helper.tokenizer.line - 1)
        helper.points.lat.removeAll(keepingCapacity: true)
        helper.points.lon.removeAll(keepingCapacity: true)
        helper.points.ids.removeAll(keepingCapacity: true)
        helper.points.properties.removeAllRows()
        helper.report = InputReport(source: report.source)
        helper.anyID = false
        helper.pointsWithIDs = 0
        helper.tokenizer.restartLines()
    }

    /// Runs `n` bytes through the tokenizer; records are handled as they complete.
    func feed(_ p: UnsafePointer<UInt8>, _ n: Int) throws {
        try tokenizer.feed(p, n, handle)
    }

    /// End of input: the last record may lack its line break.
    func finish() throws {
        guard try tokenizer.finish(handle) else {
            throw MapRenderError(.inputMalformed,
                "\(name):\(tokenizer.recordLine): quoted field is not closed before the end of the file")
        }
        if plan.header == nil {
            throw MapRenderError(.inputMalformed, "\(name): no header row (the file is empty)")
        }
    }

    private func handle(_ t: CSVTokenizer) throws {
        if t.recordTooLong {
            if plan.header == nil {
                throw MapRenderError(.inputMalformed, "\(name): the first line is longer than \(CSVTokenizer.maxRecordBytes >> 20) MiB: not a CSV header")
            }
            report.recordsRead += 1
            report.skip(.recordTooLong, at: t.recordLine)
            return
        }
        if plan.header == nil { try handleHeader() } else { handleRow() }
        if points.count > maxPoints { throw tooManyPoints() }
    }

    /// The error past `options.memoryLimit` (a streamed input that would not fit).
    private func tooManyPoints() -> MapRenderError {
        let limit = options.memoryLimit!
        return MapRenderError(.usage, "\(name): reading stopped at \(points.count) points (line \(tokenizer.recordLine)): "
            + "at about \(InputMemoryLimit.bytesPerPoint) bytes each, they\(limit.withImage ? " and the image" : "") would need \(limit.limitText)")
    }

    // MARK: Records

    /// A property or id value: empty → missing, a JSON-style number → number, else the text.
    @inline(__always)
    private func value(field k: Int) -> PropertyValue {
        let (p, count) = tokenizer.field(k)
        if count == 0 { return .missing }
        if let d = FastNumber.parseJSONStyleNumber(p, count) { return .number(d) }
        let bytes = UnsafeBufferPointer(start: p, count: count)
        // ASCII first: `String(validating:)` looks up generic metadata on every call.
        if JSONScanner.isASCII(p, count) { return .string(String(decoding: bytes, as: UTF8.self)) }
        if let valid = String(validating: bytes, as: UTF8.self) { return .string(valid) }
        noteInvalidUTF8()
        return .string(String(decoding: bytes, as: UTF8.self))
    }

    private func noteInvalidUTF8() {
        if report.invalidUTF8 == 0 { report.firstInvalidUTF8 = tokenizer.recordLine }
        report.invalidUTF8 += 1
    }

    /// Names only: whether field `k` holds a value (`value(field:)` would not give `.missing`),
    /// counting invalid UTF-8 as `value(field:)` does (numbers are ASCII) without making a String.
    @inline(__always)
    private func checkField(_ k: Int) -> Bool {
        let (p, count) = tokenizer.field(k)
        if count == 0 { return false }
        if !JSONScanner.isASCII(p, count),
           String(validating: UnsafeBufferPointer(start: p, count: count), as: UTF8.self) == nil {
            noteInvalidUTF8()
        }
        return true
    }

    @inline(__always)
    private func coordinate(field k: Int) -> CoordinateParse {
        let (p, count) = tokenizer.field(k)
        return FastNumber.parseCoordinate(p, count, decimalComma: plan.decimalComma)
    }

    private func handleHeader() throws {
        let h = CSVHeader(tokenizer, file: name)
        let names = h.names
        plan.header = names
        let lat: Int, lon: Int
        if let g = options.geometryColumn {
            // A bad option value (exit 64, as for every option naming a missing property).
            guard let k = h.detect([g.name.lowercased()]) else {
                let option = g.encoding == .wkt ? "wkt" : "polyline"
                let hint = KeySuggestion.closest(to: g.name, among: names).map { "; did you mean '\($0)'?" } ?? "; \(h.shown)"
                throw MapRenderError(.usage, "\(option) reads '\(g.name)', which \(name) does not have\(hint)")
            }
            plan.geometryIndex = k
            (lat, lon) = (k, k)
            plan.latIndex = -1
            plan.lonIndex = -1
        } else {
            (lat, lon) = try h.coordinates(lat: options.latField, lon: options.lonField)
            plan.latIndex = lat
            plan.lonIndex = lon
            report.latitudeColumn = names[lat]
            report.longitudeColumn = names[lon]
        }

        // A column named `id` is the id (like a GeoJSON feature id, not a property). A column
        // chosen with `idField` is also kept as a property, so it can still be used for labels.
        var idIsProperty = true
        if let field = options.idField {
            // A bad option value (exit 64, as for every option naming a missing property).
            guard let k = h.detect([field.lowercased()]) else {
                let hint = KeySuggestion.closest(to: field, among: names).map { "; did you mean '\($0)'?" } ?? "; \(h.shown)"
                throw MapRenderError(.usage, "id-field reads '\(field)', which \(name) does not have\(hint)")
            }
            plan.idIndex = k
        } else if let k = h.detect(["id"]), k != lat, k != lon {
            plan.idIndex = k
            idIsProperty = false
        }

        for k in names.indices where k != lat && k != lon && (k != plan.idIndex || idIsProperty) {
            if let keep = options.keepProperties, !keep.contains(names[k]) { continue }
            plan.propertyColumns.append((k, points.properties.addColumn(names[k])))
            if plan.geometryIndex >= 0 { _ = shapes.properties.addColumn(names[k]) }
        }
        rowValues = [PropertyValue](repeating: .missing, count: points.properties.names.count)
    }

    private func handleRow() {
        if plan.geometryIndex >= 0 { return handleGeometryRow() }
        report.recordsRead += 1
        let n = tokenizer.fieldCount
        let recordLine = tokenizer.recordLine
        let latIndex = plan.latIndex, lonIndex = plan.lonIndex, idIndex = plan.idIndex
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
        if namesOnly {
            if idIndex >= 0 && idIndex < n && checkField(idIndex) { pointsWithIDs += 1 }
            for (csv, _) in plan.propertyColumns where csv < n { _ = checkField(csv) }
            return
        }
        if idIndex >= 0 {
            if keepIDs {
                let id = idIndex < n ? value(field: idIndex) : .missing
                if case .missing = id {} else { anyID = true }
                points.ids.append(id)
            } else if idIndex < n {
                _ = checkField(idIndex)
            }
        }
        if plan.propertyColumns.isEmpty {
            points.properties.appendEmptyRow()
        } else {
            for k in rowValues.indices { rowValues[k] = .missing }
            for (csv, target) in plan.propertyColumns where csv < n {
                rowValues[target] = value(field: csv)
            }
            points.properties.appendRow(dense: rowValues)
        }
    }

    // MARK: Geometry columns

    /// A row whose geometry is in one column (WKT or an encoded polyline): its points become
    /// points, its lines and polygons shapes, all with the row's properties. A row whose geometry
    /// cannot be read, or holds a coordinate out of range, is skipped with the reason.
    private func handleGeometryRow() {
        report.recordsRead += 1
        let n = tokenizer.fieldCount
        let line = tokenizer.recordLine
        let k = plan.geometryIndex
        guard k < n else {
            report.skip(.malformedRow, at: line)
            return
        }
        let (p, count) = tokenizer.field(k)
        guard count > 0 else {
            report.skip(.emptyCoordinate, at: line)
            return
        }
        let bytes = UnsafeBufferPointer(start: p, count: count)
        var geometry = WKTGeometry()
        switch options.geometryColumn!.encoding {
        case .wkt:
            do { geometry = try WKT.parse(bytes) } catch {
                return skipGeometry(.malformedGeometry, line: line, because: "\(error)")
            }
        case .polyline:
            do {
                let coords = try EncodedPolyline.decode(bytes, precision: options.polylinePrecision)
                if coords.count == 2 { geometry.points = coords } else { geometry.lines = [coords] }
            } catch {
                return skipGeometry(.malformedGeometry, line: line, because: "\(error)")
            }
        }
        if geometry.isEmpty { return report.skip(.emptyCoordinate, at: line) }
        // Coordinates checked as GeoJSON's are; rings and lines as GeoJSON's must be.
        var parts: [(ShapeKind, [[Double]])] = []
        func checked(_ run: [Double]) -> [Double]? {
            var out = [Double]()
            out.reserveCapacity(run.count)
            var i = 0
            while i + 1 < run.count {
                switch CoordinateCheck.check(lat: run[i + 1], lon: run[i], wrapLongitude: options.wrapLongitude) {
                case .skip(let reason):
                    skipGeometry(reason, line: line, because: nil)
                    return nil
                case .point(let la, let lo): out.append(lo); out.append(la)
                }
                i += 2
            }
            return out
        }
        guard let pts = checked(geometry.points) else { return }
        for l in geometry.lines {
            guard let c = checked(l) else { return }
            guard c.count >= 4 else { return skipGeometry(.lineTooShort, line: line, because: nil) }
            parts.append((.line, [c]))
        }
        for poly in geometry.polygons {
            var rings: [[Double]] = []
            for r in poly {
                guard let c = checked(r) else { return }
                guard c.count >= 8 else { return skipGeometry(.ringTooShort, line: line, because: nil) }
                guard c[0] == c[c.count - 2], c[1] == c[c.count - 1] else {
                    return skipGeometry(.ringNotClosed, line: line, because: nil)
                }
                rings.append(c)
            }
            if !rings.isEmpty { parts.append((.polygon, rings)) }
        }
        for k in rowValues.indices { rowValues[k] = .missing }
        for (csv, target) in plan.propertyColumns where csv < n { rowValues[target] = value(field: csv) }
        var i = 0
        while i + 1 < pts.count {
            points.lon.append(pts[i]); points.lat.append(pts[i + 1])
            points.properties.appendRow(dense: rowValues)
            if plan.idIndex >= 0 && keepIDs { points.ids.append(plan.idIndex < n ? value(field: plan.idIndex) : .missing); anyID = true }
            i += 2
        }
        if !parts.isEmpty {
            let row = shapes.properties.rowCount
            shapes.properties.appendRow(dense: rowValues)
            for (kind, rings) in parts { shapes.add(kind: kind, rings: rings, feature: line, row: row) }
            report.shapesRead += parts.count
        }
    }

    private func skipGeometry(_ reason: SkipReason, line: Int, because detail: String?) {
        report.skip(reason, at: line)
        if firstGeometryProblem == nil, let detail { firstGeometryProblem = "line \(line): \(detail)" }
    }
}
