/// Times of track samples: seconds since 1970-01-01T00:00:00Z, parsed without Foundation's
/// date formatters (they are slow and locale-bound).
///
/// Accepted (surrounding spaces ignored):
/// - ISO 8601 date-time: `2004-03-19T18:00:00Z`, `2004-03-19T18:00:00.250Z`,
///   `2004-03-19T18:00:00+00:00`; `T` or a space between date and time; minutes or seconds may
///   be left out (`2004-03-19T18:00Z`); any `±HH:MM`, `±HHMM` or `±HH` offset is applied; a time
///   without an offset is taken as UTC. A date alone (`2004-03-19`) is its midnight UTC.
///   Seconds may be 60 (a leap second counts as the first second of the next minute).
/// - A plain number of seconds (`1079719200`, `12.5`, `-3`).
public enum TrackTime {
    /// Seconds since the Unix epoch, or nil when the text is not a time.
    public static func parse(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { parse($0.baseAddress!, $0.count) }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (negative before 1970).
    public static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int {
        // Eras of 400 years (146,097 days) starting on March 1st, so the leap day is last.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400                                     // 0...399
        let monthFromMarch = (month + 9) % 12                             // March = 0
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1          // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468                         // 719468: 0000-03-01 → 1970-01-01
    }

    static func parse(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var start = 0, end = count
        while start < end && (p[start] == 0x20 || p[start] == 0x09) { start += 1 }
        while end > start && (p[end - 1] == 0x20 || p[end - 1] == 0x09) { end -= 1 }
        if start == end { return nil }
        let q = p + start
        let n = end - start
        if n >= 10 && q[4] == UInt8(ascii: "-") && q[7] == UInt8(ascii: "-") && isDigit(q[0]) {
            return parseISO(q, n)
        }
        guard let v = FastNumber.parseDecimal(q, n, strict: false), v.isFinite else { return nil }
        return v
    }

    // MARK: ISO 8601

    private static func parseISO(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= n else { return nil }
            var v = 0
            for k in 0..<count {
                let c = p[i + k]
                guard isDigit(c) else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += count
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < n, p[i] == UInt8(ascii: c.unicodeScalars.first!) else { return false }
            i += 1
            return true
        }

        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var seconds = Double(daysFromEpoch(year: year, month: month, day: day)) * 86_400
        if i == n { return seconds }

        guard p[i] == UInt8(ascii: "T") || p[i] == UInt8(ascii: "t") || p[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), hour <= 23 else { return nil }
        var minute = 0, second = 0.0
        if expect(":") {
            guard let m = digits(2), m <= 59 else { return nil }
            minute = m
            if expect(":") {
                guard let s = digits(2), s <= 60 else { return nil }
                second = Double(s)
                if i < n && (p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: ",")) {
                    i += 1
                    var scale = 0.1
                    let before = i
                    while i < n && isDigit(p[i]) {
                        second += Double(p[i] - 48) * scale
                        scale /= 10
                        i += 1
                    }
                    guard i > before else { return nil }
                }
            }
        }
        seconds += Double(hour * 3600 + minute * 60) + second

        // Offset: Z, ±HH:MM, ±HHMM, ±HH, or none (UTC).
        if i == n { return seconds }
        if p[i] == UInt8(ascii: "Z") || p[i] == UInt8(ascii: "z") {
            return i + 1 == n ? seconds : nil
        }
        guard p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") else { return nil }
        let sign = p[i] == UInt8(ascii: "-") ? -1.0 : 1.0
        i += 1
        guard let oh = digits(2), oh <= 23 else { return nil }
        var om = 0
        if i < n {
            _ = expect(":")
            guard let m = digits(2), m <= 59 else { return nil }
            om = m
        }
        guard i == n else { return nil }
        return seconds - sign * Double(oh * 3600 + om * 60)
    }

    @inline(__always)
    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
