import Foundation

/// A TileJSON document (tilejson 2.x / 3.0) as a vector source's `url` names it: its first tile
/// template, zooms, bounds and attribution, which MapLibre takes in place of the source's own.
///
/// ```swift
/// let t = try TileJSON.parse(data, location: "/data/tiles.json")
/// t.tiles     // "/data/tiles" for "tiles": ["tiles/{z}/{x}/{y}.pbf"]: what the tile layer opens
/// ```
public struct TileJSON: Sendable, Equatable {
    /// What the tile layer opens (a URL template, a folder, a PMTiles or MBTiles path).
    public var tiles: String
    public var minzoom = 0
    public var maxzoom = 30
    /// West, south, east, north (degrees); nil: the world.
    public var bounds: [Double]?
    public var attribution: String?

    public init(tiles: String, minzoom: Int = 0, maxzoom: Int = 30, bounds: [Double]? = nil, attribution: String? = nil) {
        self.tiles = tiles; self.minzoom = minzoom; self.maxzoom = maxzoom; self.bounds = bounds; self.attribution = attribution
    }

    /// Larger documents are refused (real ones are a few KiB; vector_layers may add some).
    public static let maxBytes = 4 << 20

    /// Reads `data`, the document at `location` (a path or an http(s) URL), against which a
    /// relative tile template is resolved.
    public static func parse(_ data: Data, location: String) throws -> TileJSON {
        func fail(_ m: String) -> MapRenderError { MapRenderError(.inputMalformed, "TileJSON \(location): \(m)") }
        guard data.count <= maxBytes else { throw fail("larger than \(maxBytes >> 20) MiB") }
        guard let o = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { throw fail("not a JSON object") }
        guard let list = o["tiles"] as? [Any], let first = list.first as? String, !first.isEmpty else {
            throw fail("\"tiles\" must be an array of tile URL templates")
        }
        var t = TileJSON(tiles: try spec(first, location: location, fail: fail))
        if let v = o["scheme"] {
            guard let scheme = v as? String, scheme == "xyz" || scheme == "tms" else {
                throw fail("\"scheme\" must be \"xyz\" or \"tms\", got \(StyleReader.show(v))")
            }
            if scheme == "tms" {
                guard let flipped = flippedRows(t.tiles) else {
                    throw fail("\"scheme\": \"tms\" is read for URL templates with {y}, not for \(t.tiles)")
                }
                t.tiles = flipped
            }
        }
        func zoom(_ k: String) throws -> Int? {
            guard let v = o[k] else { return nil }
            guard let n = v as? NSNumber, n.doubleValue.isFinite, n.doubleValue >= 0, n.doubleValue <= 30 else {
                throw fail("\"\(k)\" must be a zoom from 0 to 30")
            }
            return n.intValue
        }
        t.minzoom = try zoom("minzoom") ?? 0
        t.maxzoom = try zoom("maxzoom") ?? 30
        guard t.minzoom <= t.maxzoom else { throw fail("\"minzoom\" \(t.minzoom) is above \"maxzoom\" \(t.maxzoom)") }
        if let b = o["bounds"] {
            guard let a = b as? [NSNumber], a.count == 4, a.allSatisfy({ $0.doubleValue.isFinite }) else {
                throw fail("\"bounds\" must be [west, south, east, north]")
            }
            let d = a.map(\.doubleValue)
            guard d[1] <= d[3], d[1] >= -90, d[3] <= 90 else { throw fail("\"bounds\" \(d): south must be at most north, within ±90") }
            t.bounds = d
        }
        t.attribution = o["attribution"] as? String
        return t
    }

    /// `scheme: "tms"` (rows counted from the south): a URL template's `{y}` made `{-y}`, which
    /// the tile layer fills with 2^z - 1 - y; nil for what is not a URL template with `{y}` (a
    /// folder, a file).
    public static func flippedRows(_ spec: String) -> String? {
        let lower = spec.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), spec.contains("{y}") else { return nil }
        return spec.replacingOccurrences(of: "{y}", with: "{-y}")
    }

    /// A template of the document → what the tile layer opens: an absolute URL as it is, a path
    /// or relative URL against the document's place (a local `DIR/{z}/{x}/{y}.pbf` → the folder).
    static func spec(_ template: String, location: String, fail: (String) -> MapRenderError) throws -> String {
        let lower = template.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return template }
        if location.lowercased().hasPrefix("http://") || location.lowercased().hasPrefix("https://") {
            // A relative URL on the document's server; percent-encoded braces are put back.
            guard let base = URL(string: location), let u = URL(string: template, relativeTo: base) else {
                throw fail("tile template \(template) is not a URL relative to the document")
            }
            return u.absoluteString.replacingOccurrences(of: "%7B", with: "{").replacingOccurrences(of: "%7D", with: "}")
        }
        var path = lower.hasPrefix("file://") ? String(template.dropFirst(7)) : template
        for scheme in ["pmtiles://", "mbtiles://"] where path.lowercased().hasPrefix(scheme) { path = String(path.dropFirst(scheme.count)) }
        if let r = path.range(of: "/{z}/{x}/{y}") { path = String(path[..<r.lowerBound]) }
        return MapLibreStyleReader.resolve(path, in: (location as NSString).deletingLastPathComponent)
    }

    /// Whether tile `t` reaches into `bounds` (all tiles when there are none).
    public func covers(_ t: TileID) -> Bool {
        guard let b = bounds else { return true }
        let n = Double(1 << min(t.z, 30))
        let west = Double(t.x) / n * 360 - 180, east = Double(t.x + 1) / n * 360 - 180
        let north = WebMercator.lat(y: Double(t.y) / n), south = WebMercator.lat(y: Double(t.y + 1) / n)
        guard south <= b[3], north >= b[1] else { return false }
        // Bounds across 180° (west > east) cover two ranges.
        if b[0] <= b[2] { return west <= b[2] && east >= b[0] }
        return east >= b[0] || west <= b[2]
    }
}
