/// Well-known text (OGC WKT) geometry, decoded to flat longitude/latitude runs: the reader of
/// `--wkt FIELD` columns.
///
/// Reads POINT, LINESTRING, POLYGON (with holes), MULTIPOINT (both `MULTIPOINT(1 2, 3 4)` and
/// `MULTIPOINT((1 2), (3 4))`), MULTILINESTRING, MULTIPOLYGON and GEOMETRYCOLLECTION (nested up
/// to `maxDepth`), the `EMPTY` keyword (for a whole geometry and for a member of a multi-geometry
/// or a ring), the dimension tags `Z`, `M` and `ZM` (also glued, `POINTZ`), keywords in any case,
/// any ASCII whitespace, numbers with exponents, and PostGIS's EWKT prefix `SRID=4326;` (any other
/// SRID is an error: coordinates are read as longitude, latitude). A coordinate keeps its first two
/// numbers (x = longitude, y = latitude); a third and fourth (z, m) are checked and dropped. With
/// a tag a coordinate has exactly as many numbers as the tag says; without one, 2 to 4.
///
///     let g = try WKT.parse("POLYGON ((0 0, 10 0, 10 10, 0 0), (2 2, 3 2, 3 3, 2 2))")
///     g.polygons[0].count      // 2 rings: the exterior, then a hole
///     g.polygons[0][1]         // [2, 2, 3, 2, 3, 3, 2, 2]
///
/// The result is flat (a run of numbers per line or ring, no object per vertex) and keeps no
/// more than the caller draws: points, lines and polygons, each in the order of the text.
/// Values are not range-checked (the caller's coordinate check does that) and shapes are not
/// validated (a one-point line or an unclosed ring is passed on as written). Errors name the
/// byte offset and what was wrong (`WKT at character 17: expected ')' to close POLYGON`).
///
/// Written by hand rather than with a general parser because a CSV column of WKT runs once per
/// row: no `String` is built per number (see `FastNumber`), and the input is read once, left to
/// right, with at most `maxDepth` levels of recursion (only collections recurse).
///
/// - Complexity: O(n) time in the length of the text, O(vertices) memory for the result.
public enum WKT {
    /// The longest text accepted: 64 MiB.
    public static let maxBytes = 64 << 20
    /// The most coordinates (points and vertices, all dimensions) in one geometry: 10 million.
    public static let maxCoordinates = 10_000_000
    /// The most GEOMETRYCOLLECTIONs nested inside one another.
    public static let maxDepth = 32
    /// The longest single number, in characters (longer ones would be slow to convert, and no
    /// coordinate needs them).
    public static let maxNumberLength = 512

    /// Parses one geometry (the whole text, surrounding whitespace allowed).
    public static func parse(_ text: some StringProtocol) throws(WKTError) -> WKTGeometry {
        if let r = text.utf8.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(WKTError) -> WKTGeometry in try parse(buffer) }
        }) {
            return try r.get()
        }
        return try parse(Array(text.utf8))
    }

    /// Parses one geometry from UTF-8 bytes (the whole of them, surrounding whitespace allowed).
    public static func parse(_ bytes: [UInt8]) throws(WKTError) -> WKTGeometry {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(WKTError) -> WKTGeometry in try parse(buffer) }
        }.get()
    }

    /// Parses one geometry from UTF-8 bytes in place (a field of a CSV buffer).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(WKTError) -> WKTGeometry {
        try parse(bytes, maxBytes: maxBytes, maxCoordinates: maxCoordinates, maxDepth: maxDepth)
    }

    /// `parse` with its bounds given (the tests use small ones).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxBytes: Int, maxCoordinates: Int,
                      maxDepth: Int) throws(WKTError) -> WKTGeometry {
        guard bytes.count <= maxBytes else { throw WKTError(.tooLarge(limit: maxBytes), at: maxBytes) }
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw WKTError(.noGeometry, at: 0) }
        var parser = WKTParser(base, bytes.count, maxCoordinates: maxCoordinates, maxDepth: maxDepth)
        try parser.parseAll()
        return parser.result
    }
}

/// A decoded WKT geometry: every point, line and polygon in it, flat, in the order of the text.
///
/// Made to become drawable parts directly: `lines` are the rings of one line shape and each
/// polygon the rings of one polygon shape (`ShapeSet.add(kind:rings:feature:)`); `points` are
/// markers. A POINT and a MULTIPOINT both add to `points`; a LINESTRING and the members of a
/// MULTILINESTRING to `lines`; a POLYGON and the members of a MULTIPOLYGON to `polygons`; a
/// GEOMETRYCOLLECTION adds its members' parts. EMPTY adds nothing, whether a whole geometry,
/// a member or a ring; a polygon whose rings are all EMPTY is left out.
public struct WKTGeometry: Sendable, Equatable {
    /// Points, flat: lon, lat, lon, lat, ...
    public var points: [Double] = []
    /// Lines, each a flat run of lon, lat pairs.
    public var lines: [[Double]] = []
    /// Polygons, each a list of rings (its exterior first, then its holes), each ring a flat run
    /// of lon, lat pairs.
    public var polygons: [[[Double]]] = []

    public init() {}

    public init(points: [Double] = [], lines: [[Double]] = [], polygons: [[[Double]]] = []) {
        self.points = points
        self.lines = lines
        self.polygons = polygons
    }

    /// True for an EMPTY geometry (or a collection of them).
    public var isEmpty: Bool { points.isEmpty && lines.isEmpty && polygons.isEmpty }

    /// Points, line vertices and ring vertices, all counted.
    public var vertexCount: Int {
        var pairs = points.count
        for l in lines { pairs += l.count }
        for p in polygons { for r in p { pairs += r.count } }
        return pairs / 2
    }
}

/// Why a text is not WKT, and where: `offset` is the byte offset of the problem (0-based).
///
/// The description counts from 1 (`WKT at character 17: ...`); as valid WKT is ASCII, the first
/// non-ASCII byte is itself an error, so bytes and characters agree up to the offset.
public struct WKTError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// The text is empty or only whitespace.
        case noGeometry
        /// Something other than a word where a geometry type belongs.
        case expectedGeometryType
        /// A word that is not a geometry type WKT decoding supports.
        case unknownGeometryType(String)
        /// Neither '(' nor EMPTY where a geometry, or a member or ring of one, starts (what, e.g.
        /// `POINT` or `a ring of POLYGON`).
        case expectedOpen(String)
        /// Something else where only ')' may follow (`POINT (1 2, 3 4)`).
        case expectedClose(String)
        /// Something else where ',' or ')' must follow in a list.
        case expectedCommaOrClose(String)
        /// The text ends inside parentheses: an unbalanced '('.
        case unclosed(String)
        /// A ')' after the geometry with no '(' to close.
        case unmatchedClose
        /// More text after the geometry.
        case trailingText(String)
        /// A list of coordinates with a gap (`LINESTRING (1 2, , 3 4)`, `POINT ()`).
        case expectedCoordinate(String)
        /// A coordinate's number that is not a number.
        case notANumber(String)
        /// A coordinate's number that is NaN or infinite (or overflows to infinity).
        case nonFinite(String)
        /// A number longer than `WKT.maxNumberLength` characters.
        case numberTooLong(limit: Int)
        /// A coordinate with one number.
        case tooFewNumbers(found: Int)
        /// A coordinate with more than four numbers.
        case tooManyNumbers(found: Int)
        /// A coordinate whose count of numbers is not its tag's (`POINT Z (1 2)`).
        case dimensionMismatch(tag: String, expected: Int, found: Int)
        /// Collections nested deeper than the limit.
        case tooDeep(limit: Int)
        /// A text longer than the limit (bytes).
        case tooLarge(limit: Int)
        /// More coordinates than the limit.
        case tooManyCoordinates(limit: Int)
        /// `SRID` not followed by `=`, a whole number and `;`.
        case malformedSRID
        /// An SRID other than 4326.
        case unsupportedSRID(String)

        public var description: String {
            switch self {
            case .noGeometry: return "no geometry (the text is empty)"
            case .expectedGeometryType: return "expected a geometry type such as POINT or POLYGON"
            case .unknownGeometryType(let w): return "unknown geometry type '\(w)'"
            case .expectedOpen(let what): return "expected '(' or EMPTY to start \(what)"
            case .expectedClose(let what): return "expected ')' to close \(what)"
            case .expectedCommaOrClose(let what): return "expected ',' or ')' in \(what)"
            case .unclosed(let what): return "the text ends before ')' closes \(what)"
            case .unmatchedClose: return "')' with no '(' to close"
            case .trailingText(let t): return "unexpected '\(t)' after the geometry"
            case .expectedCoordinate(let what): return "expected a coordinate in \(what)"
            case .notANumber(let t): return "'\(t)' is not a number"
            case .nonFinite(let t): return "'\(t)' is not a finite number"
            case .numberTooLong(let limit): return "a number longer than \(limit) characters"
            case .tooFewNumbers(let found):
                return "a coordinate needs at least 2 numbers (longitude latitude), found \(found)"
            case .tooManyNumbers(let found): return "a coordinate has at most 4 numbers (x y z m), found \(found)"
            case .dimensionMismatch(let tag, let expected, let found):
                return "\(tag) coordinates have \(expected) numbers, found \(found)"
            case .tooDeep(let limit): return "geometry collections nested more than \(limit) deep"
            case .tooLarge(let limit): return "text longer than \(WKTError.size(limit))"
            case .tooManyCoordinates(let limit): return "more than \(limit) coordinates"
            case .malformedSRID: return "expected SRID=4326; before the geometry"
            case .unsupportedSRID(let s):
                return "SRID \(s) is not supported (only SRID=4326: longitude, latitude in degrees)"
            }
        }
    }

    public let kind: Kind
    /// The byte offset (0-based) of the problem; the length of the text when it ended too soon.
    public let offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String { "WKT at character \(offset + 1): \(kind)" }

    fileprivate static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}

// MARK: - The parser

/// One pass over the bytes, recursive descent; the result is built as it goes.
private struct WKTParser {
    private enum Keyword: CaseIterable {
        case point, lineString, polygon, multiPoint, multiLineString, multiPolygon, geometryCollection

        var name: String {
            switch self {
            case .point: return "POINT"
            case .lineString: return "LINESTRING"
            case .polygon: return "POLYGON"
            case .multiPoint: return "MULTIPOINT"
            case .multiLineString: return "MULTILINESTRING"
            case .multiPolygon: return "MULTIPOLYGON"
            case .geometryCollection: return "GEOMETRYCOLLECTION"
            }
        }
    }

    /// The dimension tag: how many numbers each coordinate has (nil: untagged, 2 to 4).
    private enum Dimension {
        case untagged, z, m, zm
        var exact: Int? {
            switch self {
            case .untagged: return nil
            case .z, .m: return 3
            case .zm: return 4
            }
        }
        var tag: String {
            switch self {
            case .untagged: return ""
            case .z: return " Z"
            case .m: return " M"
            case .zm: return " ZM"
            }
        }
    }

    /// Where the parser is, for error messages only (the text is built when an error is thrown).
    private struct Context {
        enum Part { case whole, point, lineString, polygon, ring }
        var keyword: Keyword
        var part: Part

        var text: String {
            switch part {
            case .whole: return keyword.name
            case .point: return "a point of \(keyword.name)"
            case .lineString: return "a linestring of \(keyword.name)"
            case .polygon: return "a polygon of \(keyword.name)"
            case .ring: return "a ring of \(keyword.name)"
            }
        }
    }

    /// The keywords' lowercase spellings, to compare words with.
    private static let spellings: [(Keyword, [UInt8])] = Keyword.allCases.map { ($0, Array($0.name.lowercased().utf8)) }

    private let p: UnsafePointer<UInt8>
    private let n: Int
    private var i = 0
    private let maxCoordinates: Int
    private let maxDepth: Int
    private var coordinates = 0
    private(set) var result = WKTGeometry()

    init(_ p: UnsafePointer<UInt8>, _ n: Int, maxCoordinates: Int, maxDepth: Int) {
        self.p = p
        self.n = n
        self.maxCoordinates = maxCoordinates
        self.maxDepth = maxDepth
    }

    /// `[SRID=4326;] geometry`, then only whitespace.
    mutating func parseAll() throws(WKTError) {
        skipSpace()
        guard i < n else { throw WKTError(.noGeometry, at: i) }
        try srid()
        try geometry(depth: 0, in: nil)
        skipSpace()
        guard i == n else {
            if p[i] == UInt8(ascii: ")") { throw WKTError(.unmatchedClose, at: i) }
            throw WKTError(.trailingText(excerpt(i, n)), at: i)
        }
    }

    /// The optional EWKT prefix `SRID=4326;` (4326 only, leading zeros allowed).
    private mutating func srid() throws(WKTError) {
        let end = wordEnd()
        guard isWord(end, "srid") else { return }
        i = end
        skipSpace()
        guard i < n, p[i] == UInt8(ascii: "=") else { throw WKTError(.malformedSRID, at: i) }
        i += 1
        skipSpace()
        let start = i
        while i < n, p[i] &- 48 < 10 { i += 1 }
        let digits = i
        skipSpace()
        guard digits > start, i < n, p[i] == UInt8(ascii: ";") else { throw WKTError(.malformedSRID, at: start) }
        var first = start
        while first < digits - 1 && p[first] == UInt8(ascii: "0") { first += 1 }
        let value = excerpt(first, digits)
        guard value == "4326" else { throw WKTError(.unsupportedSRID(excerpt(start, digits)), at: start) }
        i += 1
        skipSpace()
    }

    /// One tagged geometry: `KEYWORD [Z|M|ZM] (EMPTY | ( ... ))`. `parent` is the collection it
    /// is a member of, if any (for the error at the end of the text).
    private mutating func geometry(depth: Int, in parent: Context?) throws(WKTError) {
        skipSpace()
        let start = i
        let end = wordEnd()
        guard end > start else {
            if i == n, let parent { throw WKTError(.unclosed(parent.text), at: i) }
            throw WKTError(.expectedGeometryType, at: i)
        }
        guard let (keyword, glued) = matchKeyword(start, end) else {
            throw WKTError(.unknownGeometryType(excerpt(start, end, limit: 32)), at: start)
        }
        i = end
        let whole = Context(keyword: keyword, part: .whole)
        var dimension = glued
        skipSpace()
        var wordStart = i
        var word = wordEnd()
        if glued == .untagged, let d = dimensionTag(wordStart, word) {
            dimension = d
            i = word
            skipSpace()
            wordStart = i
            word = wordEnd()
        }
        if isWord(word, "empty") {
            i = word
            return
        }
        try open(whole)
        switch keyword {
        case .point:
            let (x, y) = try coordinate(dimension, whole)
            result.points.append(x)
            result.points.append(y)
            try close(whole)
        case .lineString:
            let line = try coordinateList(dimension, whole)
            result.lines.append(line)
        case .polygon:
            let rings = try polygonRings(dimension, whole, ring: Context(keyword: keyword, part: .ring))
            if !rings.isEmpty { result.polygons.append(rings) }
        case .multiPoint:
            let member = Context(keyword: keyword, part: .point)
            repeat {
                skipSpace()
                if try emptyMember(whole) { continue }
                if p[i] == UInt8(ascii: "(") {
                    i += 1
                    let (x, y) = try coordinate(dimension, member)
                    try close(member)
                    result.points.append(x)
                    result.points.append(y)
                } else {
                    let (x, y) = try coordinate(dimension, whole)
                    result.points.append(x)
                    result.points.append(y)
                }
            } while try next(whole)
        case .multiLineString:
            let member = Context(keyword: keyword, part: .lineString)
            repeat {
                skipSpace()
                if try emptyMember(whole) { continue }
                try open(member)
                let line = try coordinateList(dimension, member)
                result.lines.append(line)
            } while try next(whole)
        case .multiPolygon:
            let member = Context(keyword: keyword, part: .polygon)
            let ring = Context(keyword: keyword, part: .ring)
            repeat {
                skipSpace()
                if try emptyMember(whole) { continue }
                try open(member)
                let rings = try polygonRings(dimension, member, ring: ring)
                if !rings.isEmpty { result.polygons.append(rings) }
            } while try next(whole)
        case .geometryCollection:
            guard depth < maxDepth else { throw WKTError(.tooDeep(limit: maxDepth), at: start) }
            repeat {
                try geometry(depth: depth + 1, in: whole)
            } while try next(whole)
        }
    }

    /// After a polygon's '(': its rings (EMPTY ones left out) and its ')'.
    private mutating func polygonRings(_ dimension: Dimension, _ polygon: Context, ring: Context) throws(WKTError) -> [[Double]] {
        var rings: [[Double]] = []
        repeat {
            skipSpace()
            if try emptyMember(polygon) { continue }
            try open(ring)
            rings.append(try coordinateList(dimension, ring))
        } while try next(polygon)
        return rings
    }

    /// After '(': coordinates separated by commas, and the ')'; flat lon, lat pairs.
    private mutating func coordinateList(_ dimension: Dimension, _ context: Context) throws(WKTError) -> [Double] {
        var line: [Double] = []
        repeat {
            let (x, y) = try coordinate(dimension, context)
            line.append(x)
            line.append(y)
        } while try next(context)
        return line
    }

    /// One coordinate: 2 to 4 numbers (as many as the tag says, if any) up to ',', '(' or ')';
    /// its first two.
    private mutating func coordinate(_ dimension: Dimension, _ context: Context) throws(WKTError) -> (Double, Double) {
        skipSpace()
        let start = i
        coordinates += 1
        guard coordinates <= maxCoordinates else { throw WKTError(.tooManyCoordinates(limit: maxCoordinates), at: start) }
        var x = 0.0, y = 0.0
        var count = 0
        while true {
            skipSpace()
            guard i < n else { break }
            let c = p[i]
            if c == UInt8(ascii: ",") || c == UInt8(ascii: ")") || c == UInt8(ascii: "(") { break }
            let tokenStart = i
            while i < n && !isSpaceOrDelimiter(p[i]) { i += 1 }
            let v = try number(tokenStart, i)
            count += 1
            if count == 1 { x = v } else if count == 2 { y = v }
        }
        if count == 0 {
            if i == n { throw WKTError(.unclosed(context.text), at: i) }
            throw WKTError(.expectedCoordinate(context.text), at: i)
        }
        if count < 2 { throw WKTError(.tooFewNumbers(found: count), at: start) }
        if let exact = dimension.exact, count != exact {
            throw WKTError(.dimensionMismatch(tag: context.keyword.name + dimension.tag, expected: exact, found: count), at: start)
        }
        if count > 4 { throw WKTError(.tooManyNumbers(found: count), at: start) }
        return (x, y)
    }

    /// The number in `p[start..<end]` (a token with no space or delimiter), checked finite.
    @inline(__always)
    private func number(_ start: Int, _ end: Int) throws(WKTError) -> Double {
        let length = end - start
        guard length <= WKT.maxNumberLength else { throw WKTError(.numberTooLong(limit: WKT.maxNumberLength), at: start) }
        if let v = FastNumber.parseDecimal(p + start, length, strict: false) {
            if v.isFinite { return v }
            throw WKTError(.nonFinite(excerpt(start, end)), at: start)
        }
        if FastNumber.isNonFiniteWord(p + start, length) { throw WKTError(.nonFinite(excerpt(start, end)), at: start) }
        throw WKTError(.notANumber(excerpt(start, end)), at: start)
    }

    // MARK: Punctuation

    /// Consumes '(' (after whitespace) or throws: `context` is what it would have started.
    private mutating func open(_ context: Context) throws(WKTError) {
        skipSpace()
        guard i < n, p[i] == UInt8(ascii: "(") else {
            throw WKTError(.expectedOpen(context.text), at: i)
        }
        i += 1
    }

    /// Consumes ')' (after whitespace) or throws.
    private mutating func close(_ context: Context) throws(WKTError) {
        skipSpace()
        guard i < n else { throw WKTError(.unclosed(context.text), at: i) }
        guard p[i] == UInt8(ascii: ")") else { throw WKTError(.expectedClose(context.text), at: i) }
        i += 1
    }

    /// After a list element: consumes ',' (true: another element follows) or ')' (false).
    private mutating func next(_ context: Context) throws(WKTError) -> Bool {
        skipSpace()
        guard i < n else { throw WKTError(.unclosed(context.text), at: i) }
        if p[i] == UInt8(ascii: ",") {
            i += 1
            return true
        }
        if p[i] == UInt8(ascii: ")") {
            i += 1
            return false
        }
        throw WKTError(.expectedCommaOrClose(context.text), at: i)
    }

    /// Consumes an EMPTY member of a list (true), or nothing (false); the end of the text, inside
    /// `list`'s parentheses, is an error.
    private mutating func emptyMember(_ list: Context) throws(WKTError) -> Bool {
        guard i < n else { throw WKTError(.unclosed(list.text), at: i) }
        let end = wordEnd()
        guard isWord(end, "empty") else { return false }
        i = end
        return true
    }

    // MARK: Words and bytes

    @inline(__always)
    private mutating func skipSpace() {
        while i < n {
            let c = p[i]
            // space, \t \n \v \f \r
            guard c == 0x20 || (c >= 0x09 && c <= 0x0D) else { return }
            i += 1
        }
    }

    @inline(__always)
    private func isSpaceOrDelimiter(_ c: UInt8) -> Bool {
        c == 0x20 || (c >= 0x09 && c <= 0x0D) || c == UInt8(ascii: ",") || c == UInt8(ascii: "(") || c == UInt8(ascii: ")")
    }

    /// The end of the run of ASCII letters at `i` (`i` itself when there is none).
    private func wordEnd() -> Int {
        var j = i
        while j < n, (p[j] | 0x20) &- UInt8(ascii: "a") < 26 { j += 1 }
        return j
    }

    /// Whether `p[i..<end]` is `lower` in any case.
    private func isWord(_ end: Int, _ lower: StaticString) -> Bool {
        isWord(i, end, UnsafeBufferPointer(start: lower.utf8Start, count: lower.utf8CodeUnitCount))
    }

    private func isWord(_ start: Int, _ end: Int, _ lower: UnsafeBufferPointer<UInt8>) -> Bool {
        guard end - start == lower.count else { return false }
        for k in 0..<lower.count where p[start + k] | 0x20 != lower[k] { return false }
        return true
    }

    /// A geometry keyword, possibly with a dimension tag glued on (`POINTZ`, `LINESTRINGZM`).
    private func matchKeyword(_ start: Int, _ end: Int) -> (Keyword, Dimension)? {
        for (keyword, spelling) in Self.spellings {
            let length = spelling.count
            guard end - start >= length && end - start <= length + 2 else { continue }
            let matched = spelling.withUnsafeBufferPointer { isWord(start, start + length, $0) }
            guard matched else { continue }
            if end - start == length { return (keyword, .untagged) }
            if let d = dimensionTag(start + length, end) { return (keyword, d) }
        }
        return nil
    }

    /// `Z`, `M` or `ZM` in any case, or nil.
    private func dimensionTag(_ start: Int, _ end: Int) -> Dimension? {
        switch end - start {
        case 1:
            switch p[start] | 0x20 {
            case UInt8(ascii: "z"): return .z
            case UInt8(ascii: "m"): return .m
            default: return nil
            }
        case 2:
            return p[start] | 0x20 == UInt8(ascii: "z") && p[start + 1] | 0x20 == UInt8(ascii: "m") ? .zm : nil
        default:
            return nil
        }
    }

    /// The text of `p[start..<end]` for a message (invalid UTF-8 shown as U+FFFD): its first
    /// `limit` bytes, and "…" when there are more.
    private func excerpt(_ start: Int, _ end: Int, limit: Int = 24) -> String {
        let shown = min(end - start, limit)
        let s = String(decoding: UnsafeBufferPointer(start: p + start, count: shown), as: UTF8.self)
        return shown < end - start ? s + "…" : s
    }
}
