import Foundation

/// A pull scanner over JSON bytes: the caller walks the document value by value.
///
/// No object tree is built; the GeoJSON readers ask for exactly the members they need and skip
/// the rest (skipping still validates). Errors carry the file name, line and column (computed
/// from the byte offset only when an error is thrown), e.g.
/// `bad.geojson:3:17: expected ',' or '}' in object`.
///
/// The scanner points into the bytes, so it lives only inside `JSONScanner.scan`.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// Offset of the next byte to read.
    var pos = 0
    /// The file name, as it starts error messages.
    let name: String
    private var containers: [UInt8] = []   // reused by skipValue
    /// Counts decoded text whose bytes are not valid UTF-8 (nil: not counted).
    let invalidUTF8: InvalidUTF8Tally?
    /// Told, now and then, that the bytes before an offset will not be read again (a mapped
    /// file gives their pages back); nil for bytes in memory.
    private let release: ((Int) -> Void)?
    private var released = 0

    /// A string as it appears in the input: the bytes between the quotes.
    struct RawString {
        var start: Int
        var end: Int
        var hasEscapes: Bool
    }

    /// What the next value is, judged by its first byte.
    enum Kind { case object, array, string, number, bool, null, end, invalid }

    private init(base: UnsafePointer<UInt8>, count: Int, name: String, invalidUTF8: InvalidUTF8Tally?,
                 release: ((Int) -> Void)? = nil) {
        self.base = base
        self.count = count
        self.name = name
        self.invalidUTF8 = invalidUTF8
        self.release = release
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { pos = 3 }   // BOM
    }

    /// Runs `body` with a scanner over `bytes` (which may be empty); `invalidUTF8` counts the
    /// strings decoded with U+FFFD for bad bytes.
    static func scan<R>(_ bytes: [UInt8], name: String, invalidUTF8: InvalidUTF8Tally? = nil,
                        _ body: (JSONScanner) throws -> R) rethrows -> R {
        let storage = bytes.isEmpty ? [0] : bytes   // a valid base address even for no bytes
        return try storage.withUnsafeBufferPointer { buffer in
            try body(JSONScanner(base: buffer.baseAddress!, count: bytes.count, name: name, invalidUTF8: invalidUTF8))
        }
    }

    /// Runs `body` with a scanner over `count` bytes at `base` (a mapped file), calling `release`
    /// with an offset when the bytes before it have been read (see `readPast`).
    static func scan<R>(base: UnsafePointer<UInt8>, count: Int, name: String, invalidUTF8: InvalidUTF8Tally? = nil,
                        release: @escaping (Int) -> Void, _ body: (JSONScanner) throws -> R) rethrows -> R {
        try body(JSONScanner(base: base, count: count, name: name, invalidUTF8: invalidUTF8, release: release))
    }

    /// A scanner of the same bytes from `offset`, for a later part of them read on another
    /// thread: it gives no pages back (the earlier part's reader may still need them) and
    /// counts invalid UTF-8 in `invalidUTF8`.
    func part(from offset: Int, invalidUTF8: InvalidUTF8Tally?) -> JSONScanner {
        var p = JSONScanner(base: base, count: count, name: name, invalidUTF8: invalidUTF8)
        p.pos = offset
        return p
    }

    /// Called between top-level values (features): the bytes before `pos` are done with.
    /// Hands them to `release` every 8 MiB.
    @inline(__always)
    mutating func readPast() {
        guard let release, pos - released >= 1 << 23 else { return }
        released = pos
        release(pos)
    }

    // MARK: Positions and errors

    /// 1-based line and column (in characters) of a byte offset.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        let end = min(offset, count)
        var i = 0
        while i < end {
            if base[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        var column = 1
        for k in lineStart..<end where base[k] & 0xC0 != 0x80 { column += 1 }
        return (line, column)
    }

    func error(_ message: String, at offset: Int) -> MapRenderError {
        let (line, column) = location(of: offset)
        return MapRenderError(.inputMalformed, "\(name):\(line):\(column): \(message)")
    }

    /// An error about the byte at `pos`, or about the input ending there.
    func error(expected what: String) -> MapRenderError {
        if pos >= count { return error("unexpected end of input; expected \(what)", at: pos) }
        return error("expected \(what), found \(describeByte(at: pos))", at: pos)
    }

    private func describeByte(at offset: Int) -> String {
        let b = base[offset]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    // MARK: Structure

    @inline(__always)
    mutating func skipWhitespace() {
        while pos < count {
            let c = base[pos]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { pos += 1 } else { return }
        }
    }

    /// The next non-whitespace byte (not consumed), or nil at the end.
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return pos < count ? base[pos] : nil
    }

    mutating func peekKind() -> Kind {
        guard let c = peek() else { return .end }
        switch c {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "N"), UInt8(ascii: "I"):
            return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .invalid
        }
    }

    /// Consumes `{`.
    mutating func enterObject() throws {
        guard peek() == UInt8(ascii: "{") else { throw error(expected: "'{'") }
        pos += 1
    }

    /// Consumes `[`.
    mutating func enterArray() throws {
        guard peek() == UInt8(ascii: "[") else { throw error(expected: "'['") }
        pos += 1
    }

    /// The next member's key (the scanner is then at its value), or nil after the closing `}`.
    /// `first` starts true for each object.
    mutating func nextMember(_ first: inout Bool) throws -> RawString? {
        let c = peek()
        if first {
            first = false
            if c == UInt8(ascii: "}") { pos += 1; return nil }
            guard c == UInt8(ascii: "\"") else { throw error(expected: "a string key or '}' in object") }
        } else {
            if c == UInt8(ascii: "}") { pos += 1; return nil }
            guard c == UInt8(ascii: ",") else { throw error(expected: "',' or '}' in object") }
            pos += 1
            guard peek() == UInt8(ascii: "\"") else { throw error(expected: "a string key in object") }
        }
        let key = try readRawString()
        guard peek() == UInt8(ascii: ":") else { throw error(expected: "':' after object key") }
        pos += 1
        return key
    }

    /// True when another element follows (the scanner is then at it), false after the closing `]`.
    mutating func nextElement(_ first: inout Bool) throws -> Bool {
        let c = peek()
        if c == UInt8(ascii: "]") {
            pos += 1
            first = false
            return false
        }
        if first {
            first = false
            return true
        }
        guard c == UInt8(ascii: ",") else { throw error(expected: "',' or ']' in array") }
        pos += 1
        return true
    }

    // MARK: Strings

    /// Reads a string token, returning where its bytes are (quotes excluded).
    mutating func readRawString() throws -> RawString {
        guard peek() == UInt8(ascii: "\"") else { throw error(expected: "a string") }
        let open = pos
        pos += 1
        let start = pos
        var escapes = false
        // Eight bytes at a time to the first quote or backslash (most strings have neither
        // escapes nor many bytes; the byte loop below then finishes the string).
        while pos + 8 <= count {
            let w = UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self)
            let q = w ^ 0x2222_2222_2222_2222, b = w ^ 0x5C5C_5C5C_5C5C_5C5C
            let lows: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            let hit = ((q &- lows) & ~q | (b &- lows) & ~b) & highs
            if hit != 0 {
                pos += hit.trailingZeroBitCount >> 3
                break
            }
            pos += 8
        }
        while pos < count {
            let c = base[pos]
            if c == UInt8(ascii: "\"") {
                let raw = RawString(start: start, end: pos, hasEscapes: escapes)
                pos += 1
                return raw
            }
            if c == UInt8(ascii: "\\") {
                escapes = true
                try checkEscape()
                continue
            }
            pos += 1
        }
        throw error("unterminated string", at: open)
    }

    /// Validates the escape at `pos` (a backslash) and moves past it.
    private mutating func checkEscape() throws {
        let at = pos
        pos += 1
        guard pos < count else { throw error("unterminated string", at: at) }
        switch base[pos] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            pos += 1
        case UInt8(ascii: "u"):
            guard pos + 4 < count, (1...4).allSatisfy({ Self.hexValue(base[pos + $0]) != nil }) else {
                throw error("invalid \\u escape in string", at: at)
            }
            pos += 5
        default:
            throw error("invalid escape in string", at: at)
        }
    }

    private static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - 48)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(c - 87)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(c - 55)
        default: return nil
        }
    }

    mutating func readString() throws -> String {
        decode(try readRawString())
    }

    /// The text of a raw string, escapes resolved (invalid UTF-8 and lone surrogates become
    /// U+FFFD; invalid UTF-8 is counted in `invalidUTF8` when `counted`).
    func decode(_ raw: RawString, counted: Bool = true) -> String {
        let bytes = UnsafeBufferPointer(start: base + raw.start, count: raw.end - raw.start)
        if !raw.hasEscapes { return text(bytes, counted: counted) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = raw.start
        func hex4(_ at: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 << 4 | Self.hexValue(base[at + $1])! }
        }
        while i < raw.end {
            let c = base[i]
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                i += 1
                continue
            }
            let e = base[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(i)
                i += 4
                if scalar >= 0xD800 && scalar < 0xDC00, i + 6 <= raw.end,
                   base[i] == UInt8(ascii: "\\"), base[i + 1] == UInt8(ascii: "u") {
                    let low = hex4(i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: out.append(e)   // \" \\ \/
            }
        }
        return out.withUnsafeBufferPointer { text($0, counted: counted) }
    }

    /// Bytes as a String; invalid UTF-8 becomes U+FFFD and is counted.
    ///
    /// ASCII (nearly all GeoJSON text) takes `String(decoding:)`: `String(validating:)` looks up
    /// generic metadata on every call and was a fifth of the parse time on 1M features.
    @inline(__always)
    private func text(_ bytes: UnsafeBufferPointer<UInt8>, counted: Bool) -> String {
        if let p = bytes.baseAddress, Self.isASCII(p, bytes.count) { return String(decoding: bytes, as: UTF8.self) }
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        if counted { invalidUTF8?.note() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `n` bytes at `p` are all ASCII, eight at a time.
    @inline(__always)
    static func isASCII(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] & 0x80 != 0 { return false }
            i += 1
        }
        return true
    }

    /// Counts the bytes `start..<end` in `invalidUTF8` when they are not valid UTF-8, as decoding
    /// them would, without making a String. (Escapes are ASCII and decode to whole UTF-8
    /// sequences, so the raw bytes of a string are valid exactly when its decoded text is.)
    func checkText(_ start: Int, _ end: Int) {
        guard let tally = invalidUTF8, !Self.isASCII(base + start, end - start) else { return }
        if String(validating: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self) == nil {
            tally.note()
        }
    }

    /// Whether a raw string is exactly `literal` (keys such as `type`, compared without a String).
    func equals(_ raw: RawString, _ literal: StaticString) -> Bool {
        if raw.hasEscapes { return decode(raw, counted: false) == literal.description }
        let n = literal.utf8CodeUnitCount
        guard raw.end - raw.start == n else { return false }
        return memcmp(base + raw.start, literal.utf8Start, n) == 0
    }

    /// Whether a raw string without escapes is exactly these UTF-8 bytes.
    @inline(__always)
    func equals(_ raw: RawString, bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !raw.hasEscapes && raw.end - raw.start == bytes.count
            && (bytes.count == 0 || memcmp(base + raw.start, bytes.baseAddress!, bytes.count) == 0)
    }

    // MARK: Numbers and literals

    /// Reads a number (JSON grammar, plus `NaN`, `Infinity` and `-Infinity` as Python writes them).
    mutating func readNumber() throws -> Double {
        skipWhitespace()
        let start = pos
        if pos < count {
            // Only the word that can match is tried (a minus sign mostly starts a plain number).
            switch base[pos] {
            case UInt8(ascii: "N"): if matchWord("NaN") { return .nan }
            case UInt8(ascii: "I"): if matchWord("Infinity") { return .infinity }
            case UInt8(ascii: "-"):
                if pos + 1 < count && base[pos + 1] == UInt8(ascii: "I") && matchWord("-Infinity") { return -.infinity }
            default: break
            }
            if let value = plainDecimal() { return value }
        }
        while pos < count {
            let c = base[pos]
            if (c >= 48 && c <= 57) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                pos += 1
            } else {
                break
            }
        }
        guard pos > start, let value = FastNumber.parseDecimal(base + start, pos - start, strict: true) else {
            if pos == start { throw error(expected: "a number") }
            throw error("invalid number", at: start)
        }
        return value
    }

    /// The shape of nearly every coordinate, `-?digits[.digits]` with at most 19 digits and no
    /// exponent, read in one pass and converted with one division; nil (nothing read) for any
    /// other shape, which `readNumber` reads the long way. Exact: a mantissa up to 2^53 and 10^k up
    /// to 10^22 are exact doubles, so the division is correctly rounded (Clinger's fast path), and
    /// the bits are those `FastNumber.parseDecimal` gives. (By hand because numbers are most of a
    /// GeoJSON file's bytes: scanning then parsing took 390 instructions a number, a quarter of
    /// a 1:50m choropleth's run; this takes about a third of that.)
    @inline(__always)
    private mutating func plainDecimal() -> Double? {
        // In locals: the loops then keep them in registers (through `self` they were read again
        // each byte).
        let base = self.base, count = self.count
        var p = pos
        let negative = base[p] == UInt8(ascii: "-")
        if negative { p += 1 }
        let intStart = p
        var m: UInt64 = 0
        while p < count {
            let d = base[p] &- 48
            if d > 9 { break }
            m = m &* 10 &+ UInt64(d)
            p += 1
        }
        let intDigits = p - intStart
        // No digit, or a leading zero before more digits (not JSON): the long way says which.
        guard intDigits > 0, intDigits == 1 || base[intStart] != UInt8(ascii: "0") else { return nil }
        var fraction = 0
        if p < count && base[p] == UInt8(ascii: ".") {
            p += 1
            let fractionStart = p
            while p < count {
                let d = base[p] &- 48
                if d > 9 { break }
                m = m &* 10 &+ UInt64(d)
                p += 1
            }
            fraction = p - fractionStart
            guard fraction > 0 else { return nil }
        }
        guard intDigits + fraction <= 19, fraction <= 22, m <= 1 << 53 else { return nil }
        if p < count {
            let c = base[p] | 0x20
            // An exponent, or a sign or dot where none may be: the long way.
            guard c != UInt8(ascii: "e"), base[p] != UInt8(ascii: "+"), base[p] != UInt8(ascii: "-"),
                  base[p] != UInt8(ascii: ".") else { return nil }
        }
        pos = p
        let value = fraction == 0 ? Double(m) : Double(m) / Self.powerOfTen(fraction)
        return negative ? -value : value
    }

    /// 10^k for k in 1...22, each exact (a switch of constants: a table in the code, no global to
    /// initialise).
    @inline(__always)
    private static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 1: 1e1; case 2: 1e2; case 3: 1e3; case 4: 1e4; case 5: 1e5; case 6: 1e6; case 7: 1e7; case 8: 1e8
        case 9: 1e9; case 10: 1e10; case 11: 1e11; case 12: 1e12; case 13: 1e13; case 14: 1e14; case 15: 1e15
        case 16: 1e16; case 17: 1e17; case 18: 1e18; case 19: 1e19; case 20: 1e20; case 21: 1e21; default: 1e22
        }
    }

    /// Reads `true` or `false`.
    mutating func readBool() throws -> Bool {
        skipWhitespace()
        if matchWord("true") { return true }
        if matchWord("false") { return false }
        throw error(expected: "a value")
    }

    /// Reads `null`.
    mutating func readNull() throws {
        skipWhitespace()
        guard matchWord("null") else { throw error(expected: "a value") }
    }

    /// Consumes `word` if it is next and not followed by more letters or digits.
    private mutating func matchWord(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard pos + n <= count, memcmp(base + pos, word.utf8Start, n) == 0 else { return false }
        if pos + n < count {
            let next = base[pos + n]
            if (next >= 48 && next <= 57) || ((next | 0x20) >= 97 && (next | 0x20) <= 122) { return false }
        }
        pos += n
        return true
    }

    // MARK: Whole values

    /// Skips one value of any kind, validating it.
    mutating func skipValue() throws {
        containers.removeAll(keepingCapacity: true)
        while true {
            // A value starts here.
            switch peekKind() {
            case .object:
                pos += 1
                if peek() == UInt8(ascii: "}") {
                    pos += 1
                } else {
                    guard peek() == UInt8(ascii: "\"") else { throw error(expected: "a string key or '}' in object") }
                    _ = try readRawString()
                    guard peek() == UInt8(ascii: ":") else { throw error(expected: "':' after object key") }
                    pos += 1
                    containers.append(UInt8(ascii: "{"))
                    continue
                }
            case .array:
                pos += 1
                if peek() == UInt8(ascii: "]") {
                    pos += 1
                } else {
                    containers.append(UInt8(ascii: "["))
                    continue
                }
            case .string: _ = try readRawString()
            case .number: _ = try readNumber()
            case .bool: _ = try readBool()
            case .null: try readNull()
            case .end, .invalid: throw error(expected: "a value")
            }
            // After a value: close containers until one continues.
            while let top = containers.last {
                let c = peek()
                if top == UInt8(ascii: "{") {
                    if c == UInt8(ascii: "}") { pos += 1; containers.removeLast(); continue }
                    guard c == UInt8(ascii: ",") else { throw error(expected: "',' or '}' in object") }
                    pos += 1
                    guard peek() == UInt8(ascii: "\"") else { throw error(expected: "a string key in object") }
                    _ = try readRawString()
                    guard peek() == UInt8(ascii: ":") else { throw error(expected: "':' after object key") }
                    pos += 1
                } else {
                    if c == UInt8(ascii: "]") { pos += 1; containers.removeLast(); continue }
                    guard c == UInt8(ascii: ",") else { throw error(expected: "',' or ']' in array") }
                    pos += 1
                }
                break
            }
            if containers.isEmpty { return }
        }
    }

    /// Reads any value as a property: objects and arrays become compact JSON text,
    /// non-finite numbers (not valid JSON) become null.
    mutating func readPropertyValue() throws -> PropertyValue {
        switch peekKind() {
        case .string: return .string(try readString())
        case .number:
            let d = try readNumber()
            return d.isFinite ? .number(d) : .null
        case .bool: return .bool(try readBool())
        case .null:
            try readNull()
            return .null
        case .object, .array: return .json(try readCompactText())
        case .end, .invalid: throw error(expected: "a value")
        }
    }

    /// Passes over a property value as `readPropertyValue` reads it (same errors, same count of
    /// invalid UTF-8) without making it; true when the value would be null.
    mutating func skipPropertyValue() throws -> Bool {
        switch peekKind() {
        case .string:
            let raw = try readRawString()
            checkText(raw.start, raw.end)
            return false
        case .number: return !(try readNumber()).isFinite
        case .bool:
            _ = try readBool()
            return false
        case .null:
            try readNull()
            return true
        case .object, .array:
            let start = pos
            try skipValue()
            checkText(start, pos)
            return false
        case .end, .invalid: throw error(expected: "a value")
        }
    }

    /// The next value as JSON text without insignificant whitespace (strings kept as written).
    mutating func readCompactText() throws -> String {
        skipWhitespace()
        let start = pos
        try skipValue()
        var out: [UInt8] = []
        out.reserveCapacity(pos - start)
        var inString = false
        var i = start
        while i < pos {
            let c = base[i]
            if inString {
                out.append(c)
                if c == UInt8(ascii: "\\") {
                    out.append(base[i + 1])
                    i += 2
                    continue
                }
                if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
                out.append(c)
            } else if c != 0x20 && c != 0x0A && c != 0x0D && c != 0x09 {
                out.append(c)
            }
            i += 1
        }
        return out.withUnsafeBufferPointer { text($0, counted: true) }
    }
}

/// Strings a scanner decoded whose bytes were not valid UTF-8: how many, and the feature of the
/// first (the reader sets `feature` as it walks).
final class InvalidUTF8Tally {
    var count = 0
    var first: Int?
    var feature = 0

    func note() {
        if count == 0 { first = feature }
        count += 1
    }
}
