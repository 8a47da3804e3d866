/// Why a row or feature was not turned into a point.
public enum SkipReason: String, CaseIterable, Codable, Sendable, Comparable {
    case emptyCoordinate = "empty coordinate"
    case notANumber = "coordinate is not a number"
    case nonFinite = "coordinate is NaN or infinite"
    case latitudeOutOfRange = "latitude outside -90..90"
    case longitudeOutOfRange = "longitude outside -180..180"
    case malformedRow = "malformed row"
    case recordTooLong = "row longer than 16 MiB"
    case nullGeometry = "null geometry"
    case unsupportedGeometry = "not a point geometry"
    case malformedGeometry = "malformed geometry"
    case lineTooShort = "line of fewer than 2 positions"
    case ringTooShort = "polygon ring of fewer than 4 positions"
    case ringNotClosed = "polygon ring not closed (first and last positions differ)"

    public static func < (a: SkipReason, b: SkipReason) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What a reader saw: rows read, points made, and what was skipped and where.
public struct InputReport: Sendable, Equatable {
    /// The file as the user named it (`-` for standard input).
    public var source: String
    /// CSV rows or GeoJSON features seen (a MultiPoint counts once).
    public var recordsRead = 0
    public var pointsRead = 0
    /// Lines and polygons read (a map reads them; see `InputOptions.keepShapes`): one per
    /// LineString, MultiLineString or Polygon, one per polygon of a MultiPolygon.
    public var shapesRead = 0
    /// The first geometry column value (WKT, encoded polyline) that could not be read, with its
    /// line and why, shown with the count of malformed geometries.
    public var geometryProblem: String?
    public var skipped: [SkipReason: Int] = [:]
    /// The first few line numbers (CSV) or feature indexes (GeoJSON, 0-based) per reason.
    public var examples: [SkipReason: [Int]] = [:]
    /// Skipped geometries by GeoJSON type ("LineString", "Polygon", "null", ...).
    public var skippedGeometries: [String: Int] = [:]
    /// Points removed by a filter expression.
    public var filteredOut = 0
    /// "csv" or "geojson".
    public var format = ""
    /// The CSV columns used for latitude and longitude, if CSV.
    public var latitudeColumn: String?
    public var longitudeColumn: String?

    public static let maxExamples = 5

    /// Text fields whose bytes are not valid UTF-8 (kept, with U+FFFD for the bad bytes), and
    /// the line (CSV) or feature index (GeoJSON, 0-based) of the first.
    public var invalidUTF8 = 0
    public var firstInvalidUTF8: Int?

    /// Features with a second `geometry` or `properties` member (the last one is used, as in
    /// RFC 8259 parsers), and the first of them.
    public var duplicateMembers = 0
    public var firstDuplicateMember: DuplicateMember?
    public struct DuplicateMember: Sendable, Equatable {
        public var feature: Int
        public var key: String
    }

    public init(source: String) { self.source = source }

    public var skippedTotal: Int { skipped.values.reduce(0, +) }

    /// Records a skipped record; `location` is a line number (CSV) or feature index (GeoJSON).
    public mutating func skip(_ reason: SkipReason, at location: Int) {
        skipped[reason, default: 0] += 1
        if examples[reason, default: []].count < Self.maxExamples {
            examples[reason, default: []].append(location)
        }
    }

    /// Adds the counts of `other`, a report on the lines that follow this one's, whose line
    /// numbers start again at 1 after `lineOffset` lines.
    public mutating func append(_ other: InputReport, lineOffset: Int) {
        recordsRead += other.recordsRead
        pointsRead += other.pointsRead
        shapesRead += other.shapesRead
        filteredOut += other.filteredOut
        for (reason, count) in other.skipped { skipped[reason, default: 0] += count }
        for (reason, lines) in other.examples {
            for line in lines where examples[reason, default: []].count < Self.maxExamples {
                examples[reason, default: []].append(line + lineOffset)
            }
        }
        for (kind, count) in other.skippedGeometries { skippedGeometries[kind, default: 0] += count }
        if firstInvalidUTF8 == nil, let first = other.firstInvalidUTF8 { firstInvalidUTF8 = first + lineOffset }
        invalidUTF8 += other.invalidUTF8
        duplicateMembers += other.duplicateMembers
        if firstDuplicateMember == nil, var d = other.firstDuplicateMember {
            d.feature += lineOffset
            firstDuplicateMember = d
        }
    }

    /// Human-readable lines, e.g. `cities.csv: skipped 3 rows: latitude outside -90..90 (lines 4, 9, 12)`.
    public func warnings() -> [String] {
        let unit = format == "csv" ? "line" : "feature"
        let shown = source == "-" ? "<stdin>" : source
        return skipped.keys.sorted().map { reason in
            let n = skipped[reason]!
            let ex = examples[reason, default: []].map(String.init).joined(separator: ", ")
            let more = n > (examples[reason]?.count ?? 0) ? ", ..." : ""
            let what = format == "csv" ? (n == 1 ? "row" : "rows") : (n == 1 ? "feature" : "features")
            // (GeoJSON has features, not rows: the summary's key stays the reason's name.)
            var why = reason == .malformedRow && format != "csv" ? "malformed feature" : reason.rawValue
            if reason == .malformedGeometry, let p = geometryProblem { why += " (first: \(p))" }
            return "\(shown): skipped \(n) \(what): \(why) (\(unit)\(n == 1 ? "" : "s") \(ex)\(more))"
        } + (invalidUTF8Problem.map { ["\($0); the bad bytes are shown as U+FFFD"] } ?? [])
          + (firstDuplicateMember.map { d in
              let n = duplicateMembers
              return ["\(shown): \(n) \(n == 1 ? "member" : "members") given twice in a feature (first: \"\(d.key)\" in feature \(d.feature)); the last of each is used"]
          } ?? [])
    }

    /// `f.geojson: 2 text fields are not valid UTF-8 (first on feature 7)`, or nil when all were.
    /// A warning, or with `--strict` an error.
    public var invalidUTF8Problem: String? {
        guard invalidUTF8 > 0 else { return nil }
        let unit = format == "csv" ? "line" : "feature"
        let shown = source == "-" ? "<stdin>" : source
        return "\(shown): \(invalidUTF8) text \(invalidUTF8 == 1 ? "field is" : "fields are") not valid UTF-8 (first on \(unit) \(firstInvalidUTF8 ?? 0))"
    }

    /// Merges counts of another report (used when one render reads several inputs).
    public mutating func merge(_ other: InputReport) {
        recordsRead += other.recordsRead
        pointsRead += other.pointsRead
        shapesRead += other.shapesRead
        for (k, v) in other.skipped { skipped[k, default: 0] += v }
        for (k, v) in other.skippedGeometries { skippedGeometries[k, default: 0] += v }
        invalidUTF8 += other.invalidUTF8
        duplicateMembers += other.duplicateMembers
        if firstDuplicateMember == nil { firstDuplicateMember = other.firstDuplicateMember }
    }
}
