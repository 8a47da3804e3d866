import Foundation
import MapRenderCore

/// The basemap drawn when no `--basemap` is given: Natural Earth admin-0 countries (public domain;
/// "Made with Natural Earth", naturalearthdata.com) at 1:110m for world and continent views and
/// 1:50m from zoom `detailZoom` on, embedded in the binary as generated source
/// (`scripts/gen-default-basemap.py`; the 1:50m data from Debian's r-cran-rnaturalearthdata through
/// `scripts/extract-ne50m.R`), so land, coasts and country borders show without any file; and
/// Natural Earth's lakes over it at both scales (`sets(zoom:style:)`).
public enum DefaultBasemap {
    /// The 1:110m shapes (decoded once per process, ~10k vertices).
    public static let shapes: ShapeSet = decode(countries110m)
    /// The 1:50m shapes (decoded on first use, ~100k vertices).
    public static let detailed: ShapeSet = decode(countries50m)

    /// From this zoom on (a view 180° of longitude across in 1024 px, about 1:70M), 1:110m's coasts look angular
    /// and small islands are missing: 1:50m is drawn.
    public static let detailZoom = 3.0

    /// The shapes for a view at `zoom`.
    public static func shapes(zoom: Double) -> ShapeSet { zoom >= detailZoom ? detailed : shapes }

    /// Natural Earth lakes at the two scales (`scripts/gen-default-lakes.py`: from 1:10m, the
    /// largest 30 for 1:110m and 454 for 1:50m, generalised as Natural Earth does).
    public static let lakes: ShapeSet = decode(lakes110m)
    public static let detailedLakes: ShapeSet = decode(lakes50m)

    /// What the built-in basemap draws for a view at `zoom` in `style`: the land, then its lakes
    /// filled with the style's water (its background) and outlined as coasts are.
    public static func sets(zoom: Double, style: Style) -> [ShapeSet] {
        var water = zoom >= detailZoom ? detailedLakes : lakes
        // The basemap's fill layer takes a feature's simplestyle `fill` first (`LayerPaint`).
        let fill = water.properties.addColumn("fill"), opacity = water.properties.addColumn("fill-opacity")
        let colour = PropertyValue.string("\(style.background)")
        water.row = (0..<water.shapeCount).map { s in
            water.properties.appendRow([(fill, colour), (opacity, .number(1))])
            return Int32(s)
        }
        return [shapes(zoom: zoom), water]
    }

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
        set.computeBoxes()  // drawn for every map: a city view projects only the shapes near it
        return set
    }
}
