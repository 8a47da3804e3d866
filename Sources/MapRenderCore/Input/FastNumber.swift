/// Decimal number parsing straight from bytes, for the readers' hot path.
///
/// Hand-written because it runs once per coordinate and per numeric field: a million CSV rows
/// mean millions of calls, and `Double(String)` would first need a `String` built (and
/// UTF-8-validated) for every field. This parser reads the bytes in place and handles the
/// common case exactly: when the digits fit in 53 bits and the power of ten is at most 22,
/// both are exact doubles, so one IEEE multiply or divide gives the correctly rounded result
/// (Clinger's fast path). That covers typical coordinates (`42.50729`, `-122.4194155`, up to
/// 15–16 significant digits). Anything else (17+ significant digits, large exponents) falls
/// back to the standard library's correctly rounded, locale-independent conversion.
enum FastNumber {
    /// 10^0 ... 10^22, each exactly representable as a Double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses all of `p[0..<n]` as a decimal number, or returns nil.
    ///
    /// - strict: JSON grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`). Otherwise also
    ///   a leading `+`, leading zeros, and `.5` / `5.` are accepted (CSV coordinates).
    /// Overflow gives ±infinity; callers that need finite values check.
    static func parseDecimal(_ p: UnsafePointer<UInt8>, _ n: Int, strict: Bool) -> Double? {
        var i = 0
        var negative = false
        if i < n, p[i] == UInt8(ascii: "-") || (!strict && p[i] == UInt8(ascii: "+")) {
            negative = p[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var significant = 0        // digits stored in mantissa (leading zeros excluded)
        var exponent = 0           // power of ten to apply to mantissa
        var truncated = false      // a nonzero digit beyond 19 was dropped

        let intStart = i
        while i < n {
            let d = p[i] &- 48
            if d > 9 { break }
            if mantissa == 0 && d == 0 {
                // leading zero: not significant
            } else if significant < 19 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                significant += 1
            } else {
                exponent += 1
                if d != 0 { truncated = true }
            }
            i += 1
        }
        let intDigits = i - intStart
        if strict {
            if intDigits == 0 { return nil }
            if intDigits > 1 && p[intStart] == UInt8(ascii: "0") { return nil }
        }
        var fracDigits = 0
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < n {
                let d = p[i] &- 48
                if d > 9 { break }
                if mantissa == 0 && d == 0 {
                    exponent -= 1
                } else if significant < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    significant += 1
                    exponent -= 1
                } else if d != 0 {
                    truncated = true
                }
                i += 1
            }
            fracDigits = i - fracStart
            if strict && fracDigits == 0 { return nil }
        }
        if intDigits == 0 && fracDigits == 0 { return nil }
        if i < n && (p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E")) {
            i += 1
            var expNegative = false
            if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) {
                expNegative = p[i] == UInt8(ascii: "-")
                i += 1
            }
            let expStart = i
            var e = 0
            while i < n {
                let d = p[i] &- 48
                if d > 9 { break }
                if e < 100_000 { e = e * 10 + Int(d) }
                i += 1
            }
            if i == expStart { return nil }
            exponent += expNegative ? -e : e
        }
        if i != n { return nil }

        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if !truncated && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 {
                value /= powersOfTen[-exponent]
            } else {
                value *= powersOfTen[exponent]
            }
            return negative ? -value : value
        }
        return slowParse(p, n)
    }

    /// The rare path: the standard library's correctly rounded conversion (the bytes were
    /// validated above, so it sees only plain decimals).
    private static func slowParse(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        Double(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
    }

    /// A CSV-style coordinate field: surrounding spaces and tabs trimmed, lenient decimal syntax,
    /// `NaN` / `inf` / `Infinity` recognised as non-finite. With `decimalComma`, a single comma
    /// and no dot (`48,85`) is read as a decimal point (semicolon-separated European files).
    static func parseCoordinate(_ p: UnsafePointer<UInt8>, _ count: Int, decimalComma: Bool = false) -> CoordinateParse {
        var start = 0
        var end = count
        while start < end && (p[start] == 0x20 || p[start] == 0x09) { start += 1 }
        while end > start && (p[end - 1] == 0x20 || p[end - 1] == 0x09) { end -= 1 }
        if start == end { return .empty }
        let q = p + start
        let n = end - start
        if let v = parseDecimal(q, n, strict: false) {
            return v.isFinite ? .value(v) : .nonFinite
        }
        if isNonFiniteWord(q, n) { return .nonFinite }
        if decimalComma, let v = parseWithDecimalComma(q, n) {
            return v.isFinite ? .value(v) : .nonFinite
        }
        return .notANumber
    }

    /// A property field is a number when all of it is a finite JSON-style number
    /// (so `00M`, `0123` and `1,5` stay strings). Surrounding spaces are ignored.
    static func parseJSONStyleNumber(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var start = 0
        var end = count
        while start < end && p[start] == 0x20 { start += 1 }
        while end > start && p[end - 1] == 0x20 { end -= 1 }
        if start == end { return nil }
        // Cheap rejection of most text before doing any work.
        let c = p[start]
        guard c == UInt8(ascii: "-") || (c >= 48 && c <= 57) else { return nil }
        guard let v = parseDecimal(p + start, end - start, strict: true), v.isFinite else { return nil }
        return v
    }

    /// `nan`, `inf`, `infinity`, optionally signed, any case.
    static func isNonFiniteWord(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        if i < n && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) { i += 1 }
        let rest = n - i
        guard rest == 3 || rest == 8 else { return false }
        var word: [UInt8] = []
        word.reserveCapacity(rest)
        for k in i..<n { word.append(p[k] | 0x20) }   // ASCII lowercase
        return word == Array("nan".utf8) || word == Array("inf".utf8) || word == Array("infinity".utf8)
    }

    private static func parseWithDecimalComma(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var commas = 0
        for k in 0..<n {
            if p[k] == UInt8(ascii: ",") { commas += 1 }
            if p[k] == UInt8(ascii: ".") { return nil }
        }
        guard commas == 1 else { return nil }
        var copy = Array(UnsafeBufferPointer(start: p, count: n))
        for k in copy.indices where copy[k] == UInt8(ascii: ",") { copy[k] = UInt8(ascii: ".") }
        return copy.withUnsafeBufferPointer { parseDecimal($0.baseAddress!, n, strict: false) }
    }
}

/// One coordinate as read from a field or a GeoJSON position element.
enum CoordinateParse: Equatable {
    case value(Double)
    case empty
    case notANumber
    case nonFinite
}
