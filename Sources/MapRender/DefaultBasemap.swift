import Foundation
import MapRenderCore

/// The basemap drawn when no `--basemap` is given: Natural Earth 1:110m admin-0 countries
/// (public domain; "Made with Natural Earth", naturalearthdata.com), embedded in the binary as
/// generated source (`scripts/gen-default-basemap.py`), so land, coasts and country borders show
/// without any file. 1:50m is not embedded: no offline copy was available when this was built.
public enum DefaultBasemap {
    /// The decoded shapes (decoded once per process, ~10k vertices).
    public static let shapes: ShapeSet = decode(countries110m)

    /// Decodes the varint/zigzag/delta encoding described in the generator script.
    static func decode(_ base64: String) -> ShapeSet {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else { return ShapeSet() }
        let bytes = [UInt8](data)
        var pos = 0
        func next() -> Int {
            var v = 0, shift = 0
            while pos < bytes.count {
                let b = bytes[pos]; pos += 1
                v |= Int(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            return v
        }
        func signed() -> Int { let z = next(); return (z >> 1) ^ -(z & 1) }
        var set = ShapeSet()
        let shapeCount = next()
        for s in 0..<shapeCount {
            var rings: [[Double]] = []
            for _ in 0..<next() {
                let n = next()
                var ring: [Double] = []
                ring.reserveCapacity(2 * n)
                var x = 0, y = 0
                for _ in 0..<n {
                    x += signed(); y += signed()
                    ring.append(Double(x) / 1e4); ring.append(Double(y) / 1e4)
                }
                rings.append(ring)
            }
            set.add(kind: .polygon, rings: rings, feature: s)
        }
        return set
    }
}
