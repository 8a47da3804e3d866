/// Google's encoded polyline format, decoded to flat longitude/latitude pairs: the reader of
/// `--polyline FIELD` columns (routes from the Google Maps, OSRM, Valhalla and Mapbox APIs).
///
/// The format stores each vertex as a latitude then a longitude, each the difference from the
/// previous vertex, in units of 10^-precision degrees (10^-5 for Google; 10^-6 for OSRM's and
/// Valhalla's `polyline6`). Each difference is a zigzag-signed integer written in 5-bit chunks,
/// least significant first, each chunk + 63 one printable character (63...126), with 0x20 set on
/// every chunk but the last. Output is lon, lat (the order of the rest of the library).
///
///     try EncodedPolyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@")
///     // [-120.2, 38.5, -120.95, 40.7, -126.453, 43.252]
///
/// The empty text is an empty line (no vertices). Errors name the byte offset: a character
/// outside 63...126, a value cut off by the end of the text, a value of more than 32 bits, a
/// latitude without its longitude, a latitude outside -90...90 or a longitude outside
/// -180...180. Sums are kept as integers, so a long line does not drift; each vertex is the
/// integer divided by the scale, the nearest double to the encoded decimal.
///
/// - Complexity: O(n) time in the length of the text; the result is O(n) memory.
public enum EncodedPolyline {
    /// The longest text accepted: 64 MiB.
    public static let maxBytes = 64 << 20

    /// Decodes a polyline of `precision` decimal places (5 or 6) to lon, lat, lon, lat, ...
    public static func decode(_ text: some StringProtocol, precision: Int = 5) throws(EncodedPolylineError) -> [Double] {
        if let r = text.utf8.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(EncodedPolylineError) -> [Double] in try decode(buffer, precision: precision) }
        }) {
            return try r.get()
        }
        return try decode(Array(text.utf8), precision: precision)
    }

    /// Decodes a polyline from its bytes.
    public static func decode(_ bytes: [UInt8], precision: Int = 5) throws(EncodedPolylineError) -> [Double] {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(EncodedPolylineError) -> [Double] in try decode(buffer, precision: precision) }
        }.get()
    }

    /// Decodes a polyline from bytes in place (a field of a CSV buffer).
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, precision: Int = 5) throws(EncodedPolylineError) -> [Double] {
        let scale: Int
        switch precision {
        case 5: scale = 100_000
        case 6: scale = 1_000_000
        default: throw EncodedPolylineError(.unsupportedPrecision(precision), at: nil)
        }
        guard bytes.count <= maxBytes else { throw EncodedPolylineError(.tooLarge(limit: maxBytes), at: maxBytes) }
        guard let p = bytes.baseAddress, bytes.count > 0 else { return [] }
        let n = bytes.count
        let latLimit = 90 * scale, lonLimit = 180 * scale
        let divisor = Double(scale)
        var coords: [Double] = []
        var lat = 0, lon = 0
        var i = 0
        while i < n {
            let latStart = i
            lat += try value(p, n, &i)
            guard i < n else { throw EncodedPolylineError(.latitudeWithoutLongitude, at: i) }
            let lonStart = i
            lon += try value(p, n, &i)
            // Checked per vertex, so the sums stay small (no overflow however long the text).
            guard lat >= -latLimit && lat <= latLimit else {
                throw EncodedPolylineError(.latitudeOutOfRange(Double(lat) / divisor), at: latStart)
            }
            guard lon >= -lonLimit && lon <= lonLimit else {
                throw EncodedPolylineError(.longitudeOutOfRange(Double(lon) / divisor), at: lonStart)
            }
            coords.append(Double(lon) / divisor)
            coords.append(Double(lat) / divisor)
        }
        return coords
    }

    /// One zigzag value at `i`, which it moves past: at most 7 chunks, 32 bits.
    @inline(__always)
    private static func value(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) throws(EncodedPolylineError) -> Int {
        let start = i
        var bits: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard i < n else { throw EncodedPolylineError(.truncated, at: start) }
            let c = p[i]
            guard c >= 63 && c <= 126 else { throw EncodedPolylineError(.badCharacter(c), at: i) }
            let chunk = UInt64(c - 63)
            bits |= (chunk & 0x1F) << shift
            i += 1
            if chunk < 0x20 { break }
            shift += 5
            guard shift <= 30 else { throw EncodedPolylineError(.overflow, at: start) }
        }
        guard bits <= UInt64(UInt32.max) else { throw EncodedPolylineError(.overflow, at: start) }
        let magnitude = Int(bits >> 1)
        return bits & 1 == 0 ? magnitude : ~magnitude
    }
}

/// Why a text is not an encoded polyline, and where: `offset` is the byte offset of the problem
/// (0-based; nil for a bad precision, which is not about the text).
///
/// The description counts from 1 (`encoded polyline at character 5: ...`); the format is ASCII,
/// and the first non-ASCII byte is itself an error, so bytes and characters agree up to it.
public struct EncodedPolylineError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// A precision other than 5 or 6.
        case unsupportedPrecision(Int)
        /// A byte outside 63...126.
        case badCharacter(UInt8)
        /// The text ends inside a value (its last chunk has the continuation bit).
        case truncated
        /// A value of more than 32 bits.
        case overflow
        /// The text ends after a latitude.
        case latitudeWithoutLongitude
        /// A decoded latitude outside -90...90.
        case latitudeOutOfRange(Double)
        /// A decoded longitude outside -180...180.
        case longitudeOutOfRange(Double)
        /// A text longer than the limit (bytes).
        case tooLarge(limit: Int)

        public var description: String {
            switch self {
            case .unsupportedPrecision(let p): return "precision \(p) is not supported (5 or 6)"
            case .badCharacter(let c):
                let shown = c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16, uppercase: true))"
                return "\(shown) is not a polyline character ('?' to '~')"
            case .truncated: return "the text ends inside a value that starts here"
            case .overflow: return "a value longer than 32 bits"
            case .latitudeWithoutLongitude: return "the text ends after a latitude, without its longitude"
            case .latitudeOutOfRange(let v): return "latitude \(v) is outside -90...90"
            case .longitudeOutOfRange(let v): return "longitude \(v) is outside -180...180"
            case .tooLarge(let limit): return "text longer than \(limit >> 20) MiB"
            }
        }
    }

    public let kind: Kind
    /// The byte offset (0-based) of the problem: the start of the value for a range, overflow or
    /// cut-off value, the byte itself for a bad character, the end for a missing longitude.
    public let offset: Int?

    public init(_ kind: Kind, at offset: Int?) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String {
        guard let offset else { return "encoded polyline: \(kind)" }
        return "encoded polyline at character \(offset + 1): \(kind)"
    }
}
