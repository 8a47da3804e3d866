/// The streaming RFC 4180 tokenizer behind every CSV reader (points, tracks): bytes in, one
/// callback per record out, fed one chunk at a time so a file is never held whole.
///
/// Handles quoted fields (delimiters, `""` and line breaks inside quotes), CRLF / LF / CR line
/// ends, text after a closing quote, and a missing final newline; blank lines are skipped. The
/// current record's field bytes (quotes removed) sit back to back in one reused buffer, so a
/// record can span any number of chunks and nothing is allocated per record.
///
/// Hot stored properties are `@exclusivity(unchecked)`: a tokenizer is used by one thread, and the
/// runtime access checks on them cost about a fifth of the parse time.
final class CSVTokenizer {
    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }

    let delimiter: UInt8
    @exclusivity(unchecked) private var state = State.fieldStart
    @exclusivity(unchecked) private var skipLF = false
    @exclusivity(unchecked) private var previousCRInQuotes = false
    @exclusivity(unchecked) private var hadQuote = false
    /// 1-based physical line of the next byte, and the line the current record began on.
    @exclusivity(unchecked) private(set) var line = 1
    @exclusivity(unchecked) private(set) var recordLine = 1

    @exclusivity(unchecked) private var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var bytesCapacity = 1024
    @exclusivity(unchecked) private var bytesCount = 0
    @exclusivity(unchecked) private var ends: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var endsCapacity = 32
    @exclusivity(unchecked) private(set) var fieldCount = 0
    /// A record longer than this many bytes (or of more than `maxRecordBytes / 16` fields) is not
    /// kept: its bytes are dropped as they come and it is handed out with no fields and
    /// `recordTooLong` set, so a file with no line breaks (10 GB of zeros) is read in bounded memory.
    static let maxRecordBytes = 16 << 20
    @exclusivity(unchecked) private(set) var recordTooLong = false

    init(delimiter: UInt8) {
        self.delimiter = delimiter
        bytes = .allocate(capacity: bytesCapacity)
        ends = .allocate(capacity: endsCapacity)
    }

    deinit {
        bytes.deallocate()
        ends.deallocate()
    }

    // MARK: The current record (valid inside the callback)

    @inline(__always)
    func fieldStart(_ k: Int) -> Int { k == 0 ? 0 : ends[k - 1] }

    /// Field k's bytes (quotes removed); valid until the callback returns.
    @inline(__always)
    func field(_ k: Int) -> (UnsafePointer<UInt8>, Int) {
        let s = fieldStart(k)
        return (UnsafePointer(bytes + s), ends[k] - s)
    }

    func string(_ k: Int) -> String {
        let (p, n) = field(k)
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// Between records: no field begun, no line break half read.
    var atRecordStart: Bool {
        state == .fieldStart && bytesCount == 0 && fieldCount == 0 && !hadQuote && !recordTooLong && !skipLF
    }

    /// Counts `k` more lines as read (lines another tokenizer read from here on); only between records.
    func skipLines(_ k: Int) {
        precondition(atRecordStart, "lines are skipped between records")
        line += k
        recordLine = line
    }

    /// Counts lines from 1 again; only between records.
    func restartLines() {
        precondition(atRecordStart, "lines are counted again between records")
        line = 1
        recordLine = 1
    }

    // MARK: Feeding

    /// Runs `n` bytes through the state machine, calling `onRecord` for each completed record.
    func feed(_ p: UnsafePointer<UInt8>, _ n: Int, _ onRecord: (CSVTokenizer) throws -> Void) rethrows {
        let delim = delimiter, quote = UInt8(ascii: "\""), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
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
                    hadQuote = true
                    i += 1
                    continue
                }
                var j = i
                while j < n {
                    let c = p[j]
                    if c == delim || c == lf || c == cr { break }
                    j += 1
                }
                append(p + i, j - i)
                if j == n { state = .unquoted; return }
                let c = p[j]
                i = j + 1
                if c == delim {
                    endField()
                    state = .fieldStart
                } else {
                    try endRecord(lineBreak: c, onRecord)
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
                if c == quote {
                    append([quote], 1)
                    state = .quoted
                    i += 1
                } else if c == delim {
                    endField()
                    state = .fieldStart
                    i += 1
                } else if c == lf || c == cr {
                    i += 1
                    try endRecord(lineBreak: c, onRecord)
                } else {
                    state = .unquoted          // text after a closing quote is kept
                }
            }
        }
    }

    /// End of input. Returns false when a quoted field was still open (the last record is lost).
    func finish(_ onRecord: (CSVTokenizer) throws -> Void) rethrows -> Bool {
        if state == .quoted { return false }
        if state != .fieldStart || fieldCount > 0 || hadQuote {
            try endRecord(lineBreak: nil, onRecord)
        }
        return true
    }

    // MARK: Private

    @inline(__always)
    private func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if n == 0 || recordTooLong { return }
        if bytesCount + n > Self.maxRecordBytes {
            recordTooLong = true
            return
        }
        if bytesCount + n > bytesCapacity {
            var capacity = bytesCapacity * 2
            while capacity < bytesCount + n { capacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: bytes, count: bytesCount)
            bytes.deallocate()
            bytes = grown
            bytesCapacity = capacity
        }
        (bytes + bytesCount).update(from: p, count: n)
        bytesCount += n
    }

    @inline(__always)
    private func endField() {
        if recordTooLong { return }
        if fieldCount == Self.maxRecordBytes / 16 {
            recordTooLong = true
            return
        }
        if fieldCount == endsCapacity {
            let grown = UnsafeMutablePointer<Int>.allocate(capacity: endsCapacity * 2)
            grown.update(from: ends, count: fieldCount)
            ends.deallocate()
            ends = grown
            endsCapacity *= 2
        }
        ends[fieldCount] = bytesCount
        fieldCount += 1
    }

    private func endRecord(lineBreak: UInt8?, _ onRecord: (CSVTokenizer) throws -> Void) rethrows {
        endField()
        if recordTooLong { fieldCount = 0 }
        let blank = !recordTooLong && fieldCount == 1 && !hadQuote && isBlank(0)
        defer {
            bytesCount = 0
            fieldCount = 0
            hadQuote = false
            recordTooLong = false
            state = .fieldStart
            if let lineBreak {
                line += 1
                skipLF = lineBreak == 0x0D
            }
            recordLine = line
        }
        if !blank { try onRecord(self) }
    }

    private func isBlank(_ k: Int) -> Bool {
        for i in fieldStart(k)..<ends[k] where bytes[i] != 0x20 && bytes[i] != 0x09 { return false }
        return true
    }
}
