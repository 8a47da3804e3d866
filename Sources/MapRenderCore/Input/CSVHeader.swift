import Foundation

/// The start of every CSV the readers take (points and tracks): a UTF-8 byte order mark, the
/// delimiter, and the header row with its column lookup, each with one wording for its messages.
struct CSVHeader {
    /// Header names accepted for the latitude and the longitude when none is given (case-insensitive).
    static let latitudeNames = ["lat", "latitude", "y"]
    static let longitudeNames = ["lon", "lng", "long", "longitude", "x"]

    /// Column names without surrounding spaces and tabs.
    let names: [String]
    /// The file's display name, for messages.
    let file: String
    private let lowered: [String]

    init(_ t: CSVTokenizer, file: String) {
        names = (0..<t.fieldCount).map { Self.trimmed(t.string($0)) }
        lowered = names.map { $0.lowercased() }
        self.file = file
    }

    /// The header as messages show it (its first 30 names).
    var shown: String {
        names.count > 30 ? names.prefix(30).joined(separator: ", ") + ", ..." : names.joined(separator: ", ")
    }

    /// The column named `wanted` (case-insensitive), or an error naming the role and the header.
    func column(named wanted: String, for role: String) throws -> Int {
        guard let k = lowered.firstIndex(of: wanted.lowercased()) else {
            throw MapRenderError(.inputMalformed, "\(file): no column named '\(wanted)' for the \(role); header is: \(shown)")
        }
        return k
    }

    /// The first of `candidates` the header has.
    func detect(_ candidates: [String]) -> Int? {
        for c in candidates { if let k = lowered.firstIndex(of: c) { return k } }
        return nil
    }

    /// The latitude and longitude columns: the given names, else the usual ones.
    func coordinates(lat: String?, lon: String?) throws -> (lat: Int, lon: Int) {
        let la = try lat.map { try column(named: $0, for: "latitude") } ?? detect(Self.latitudeNames)
        let lo = try lon.map { try column(named: $0, for: "longitude") } ?? detect(Self.longitudeNames)
        guard let la, let lo else {
            throw MapRenderError(.inputMalformed,
                "\(file): no latitude/longitude columns found; header is: \(shown) (use --lat and --lon)")
        }
        guard la != lo else {
            throw MapRenderError(.inputMalformed, "\(file): latitude and longitude cannot both be column '\(names[la])'")
        }
        return (la, lo)
    }

    private static func trimmed(_ s: String) -> String {
        var t = Substring(s)
        while let c = t.first, c == " " || c == "\t" { t.removeFirst() }
        while let c = t.last, c == " " || c == "\t" { t.removeLast() }
        return String(t)
    }

    // MARK: - Before the header

    /// Skips a UTF-8 byte order mark and settles the delimiter: `given`, or the most frequent of
    /// `,` `;` tab in the header line, reading until that line is complete. Returns the bytes read
    /// for that (to be parsed first) and the delimiter.
    static func start(_ source: ByteSource, delimiter given: UInt8?, chunk: UnsafeMutablePointer<UInt8>,
                      chunkSize: Int) throws -> (bytes: [UInt8], delimiter: UInt8) {
        // A UTF-8 byte order mark is not part of the first column's name.
        if try source.peek(3) == [0xEF, 0xBB, 0xBF] {
            _ = try source.read(into: chunk, capacity: 3)
        }
        if let given { return ([], given) }
        var bytes: [UInt8] = []
        var inQuotes = false
        var scanned = 0
        var lineEnd: Int?
        while lineEnd == nil {
            let n = try source.read(into: chunk, capacity: chunkSize)
            if n == 0 { break }
            bytes.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n))
            while scanned < bytes.count {
                let b = bytes[scanned]
                if b == UInt8(ascii: "\"") {
                    inQuotes.toggle()
                } else if !inQuotes && (b == 0x0A || b == 0x0D) {
                    lineEnd = scanned
                    break
                }
                scanned += 1
            }
        }
        return (bytes, detectDelimiter(bytes[..<(lineEnd ?? bytes.count)]))
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
}
