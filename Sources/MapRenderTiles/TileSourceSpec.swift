import Foundation
import MapRenderCore

/// How tiles are found and fetched: `--tiles`, `--tile-size`, `--tile-cache`, ... (one per render;
/// a batch shares the fetcher and cache of equal options).
public struct TileOptions: Sendable, Equatable {
    /// `--tiles SOURCE` (repeatable): a preset name, a URL template, a tile folder, an .mbtiles or .pmtiles file.
    public var sources: [String] = []
    /// Tile size in pixels of URL templates (presets and files carry their own): 256 or 512.
    public var tileSize: Int?
    /// `{s}` values (`--tiles-subdomains abc`).
    public var subdomains: String?
    /// Replaces the sources' attribution.
    public var attribution: String?
    /// Snap the fitted view to a whole zoom for pixel-crisp tiles.
    public var integerZoom = false
    /// Disk cache folder; default `$XDG_CACHE_HOME/maprender/tiles` (or `~/.cache/maprender/tiles`).
    public var cacheDirectory: String?
    /// Added to the User-Agent (a contact: URL or e-mail).
    public var userAgent: String?
    /// The product at the start of the User-Agent: `maprender/VERSION` (set by the pipeline).
    public var product = "maprender"
    /// Concurrent connections per host.
    public var connectionsPerHost = 2
    /// Use the disk cache only.
    public var offline = false
    /// Missing or failed tiles are an error, not a warning.
    public var strict = false
    /// Seconds before one HTTP request gives up, in total.
    public var timeout = 15.0
    /// Seconds one HTTP request waits for the server's answer to begin (connecting included).
    public var connectTimeout = 10.0
    /// Seconds one HTTP request waits for its next byte once the answer has begun (a server that
    /// stops sending is given up after this, not after `timeout`).
    public var stallTimeout = 5.0
    /// `--tiles-timeout`: seconds the tiles of one map may take in all; tiles still pending then
    /// count as failed, and the map is drawn with what arrived.
    public var mapTimeout = 20.0
    /// The largest response body taken for one tile or range (bytes, after decompression):
    /// a larger `Content-Length` is refused before the body is read, a longer body stopped there.
    public var maxBodyBytes = 16 << 20
    /// `--tile-cache-max`: bytes the disk cache may hold; least recently used tiles are removed
    /// past it. Nil: no bound.
    public var cacheMaxBytes: Int?
    /// `--allow-missing-tiles`: a map none of whose tiles arrived is drawn (with a warning) rather
    /// than refused with exit 69.
    public var allowMissing = false
    /// Retries after 429 and 5xx answers and timeouts (with backoff, honouring Retry-After).
    public var retries = 3
    /// Seconds before the first retry when the server gives no Retry-After; doubled each time.
    public var retryBase = 0.5
    /// The longest Retry-After maprender waits (seconds); a server asking for more fails the tile.
    public var maxRetryWait = 60.0

    public init() {}

    /// The cache folder these options use.
    public var resolvedCacheDirectory: String {
        if let d = cacheDirectory { return d }
        let env = ProcessInfo.processInfo.environment
        if let x = env["XDG_CACHE_HOME"], !x.isEmpty { return x + "/maprender/tiles" }
        return (env["HOME"] ?? NSTemporaryDirectory()) + "/.cache/maprender/tiles"
    }

    public var fullUserAgent: String {
        let base = "\(product) (static map renderer)"
        if let u = userAgent, !u.isEmpty { return base + " " + u }
        return base
    }

    public func validate() throws {
        if let s = tileSize, s != 256 && s != 512 { throw MapRenderError(.usage, "--tile-size must be 256 or 512, got \(s)") }
        guard (1...16).contains(connectionsPerHost) else {
            throw MapRenderError(.usage, "--tile-connections must be in 1...16, got \(connectionsPerHost)")
        }
        guard timeout > 0, timeout <= 3600 else { throw MapRenderError(.usage, "tile timeout must be in (0, 3600] seconds, got \(timeout)") }
        guard connectTimeout > 0, connectTimeout <= 3600, stallTimeout > 0, stallTimeout <= 3600 else {
            throw MapRenderError(.usage, "tile connect and stall timeouts must be in (0, 3600] seconds")
        }
        guard mapTimeout > 0, mapTimeout <= 86400 else {
            throw MapRenderError(.usage, "--tiles-timeout must be in (0, 86400] seconds, got \(mapTimeout)")
        }
        guard maxBodyBytes > 0 else { throw MapRenderError(.usage, "the tile body limit must be positive") }
        if let m = cacheMaxBytes, m < 0 { throw MapRenderError(.usage, "--tile-cache-max must not be negative") }
        guard maxRetryWait >= 0, maxRetryWait <= 86400, retryBase >= 0, retryBase <= 3600, (0...100).contains(retries) else {
            throw MapRenderError(.usage, "tile retries must be 0...100, each wait 0...3600 s and the longest 0...86400 s")
        }
        if let s = subdomains, s.isEmpty { throw MapRenderError(.usage, "--tiles-subdomains must not be empty") }
        for s in sources { _ = try TileSourceSpec.parse(s, options: self) }
    }
}

/// One `--tiles` value, resolved.
public struct TileSourceSpec: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case template(TileURLTemplate)
        case folder(String)
        case mbtiles(String)
        case pmtiles(String)
        case pmtilesURL(String)
    }
    public var kind: Kind
    public var text: String
    public var tileSize: Int
    public var minZoom = 0
    public var maxZoom = 22
    public var attribution: String?

    /// Parses `text`: a preset name, an http(s) URL template or .pmtiles URL, a folder, or a file.
    public static func parse(_ text: String, options: TileOptions) throws -> TileSourceSpec {
        let size = options.tileSize ?? 256
        if let p = TilePreset.named(text) {
            var t = try TileURLTemplate(p.url, subdomains: p.subdomains)
            if let s = options.subdomains { t.subdomains = s.map(String.init) }
            return TileSourceSpec(kind: .template(t), text: text, tileSize: p.tileSize, minZoom: 0,
                                  maxZoom: p.maxZoom, attribution: p.attribution)
        }
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            if URL(string: text)?.path.lowercased().hasSuffix(".pmtiles") == true {
                return TileSourceSpec(kind: .pmtilesURL(try TileURLTemplate.checkedURL(text, shown: text)), text: text, tileSize: size)
            }
            let t = try TileURLTemplate(text, subdomains: options.subdomains.map { $0.map(String.init) })
            return TileSourceSpec(kind: .template(t), text: text, tileSize: size)
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: text, isDirectory: &isDir) else {
            let presets = TilePreset.all.map(\.name).joined(separator: ", ")
            throw MapRenderError(.inputUnreadable,
                                 "--tiles: '\(text)' is not a preset (\(presets)), an http(s) URL, or an existing folder or file")
        }
        if isDir.boolValue { return TileSourceSpec(kind: .folder(text), text: text, tileSize: size) }
        if lower.hasSuffix(".mbtiles") { return TileSourceSpec(kind: .mbtiles(text), text: text, tileSize: size) }
        if lower.hasSuffix(".pmtiles") { return TileSourceSpec(kind: .pmtiles(text), text: text, tileSize: size) }
        throw MapRenderError(.usage, "--tiles: '\(text)' is a file but not .mbtiles or .pmtiles")
    }
}

/// A tile URL template: `{z}`, `{x}`, `{y}`, `{-y}` (TMS rows), `{s}` (a subdomain), `{r}` (`@2x`).
public struct TileURLTemplate: Sendable, Equatable {
    public var template: String
    public var subdomains: [String]

    public init(_ template: String, subdomains: [String]? = nil) throws {
        guard template.contains("{z}") else {
            throw MapRenderError(.usage, "--tiles: URL template '\(Redaction.redact(template))' has no {z}")
        }
        guard template.contains("{x}"), template.contains("{y}") || template.contains("{-y}") else {
            throw MapRenderError(.usage, "--tiles: URL template '\(Redaction.redact(template))' needs {x} and {y} (or {-y})")
        }
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let p = String(rest[open...close])
            guard Self.placeholders.contains(p) else {
                throw MapRenderError(.usage, "--tiles: URL template '\(Redaction.redact(template))' has an unknown placeholder \(p) (known: \(Self.placeholders.joined(separator: " ")))")
            }
            rest = rest[rest.index(after: close)...]
        }
        var sample = template
        for p in Self.placeholders { sample = sample.replacingOccurrences(of: p, with: p == "{r}" ? "" : "0") }
        _ = try Self.checkedURL(sample, shown: template)
        // The scheme in lower case: `HTTP://` is accepted as typed, and requested as `http://`.
        let colon = template.firstIndex(of: ":")!
        self.template = template[..<colon].lowercased() + template[colon...]
        self.subdomains = subdomains ?? (template.contains("{s}") ? ["a", "b", "c"] : [])
    }

    static let placeholders = ["{z}", "{x}", "{y}", "{-y}", "{s}", "{r}"]

    /// `url` with its scheme in lower case, checked: http or https, a host, a port in 1...65535.
    static func checkedURL(_ url: String, shown: String) throws -> String {
        let name = "--tiles: URL '\(Redaction.redact(shown))'"
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw MapRenderError(.usage, "\(name) is not a valid http(s) URL")
        }
        guard let host = c.host, !host.isEmpty else { throw MapRenderError(.usage, "\(name) has no host") }
        if let port = c.port, !(1...65535).contains(port) {
            throw MapRenderError(.usage, "\(name): port \(port) is not in 1...65535")
        }
        let colon = url.firstIndex(of: ":")!
        return url[..<colon].lowercased() + url[colon...]
    }

    /// Whether the template has `{r}`: the server has `@2x` tiles.
    public var hasRetina: Bool { template.contains("{r}") }

    /// The URL of one tile. The subdomain depends only on the tile, so a tile is always cached under one URL.
    public func url(_ t: TileID, retina: Bool) -> String {
        var s = template
        s = s.replacingOccurrences(of: "{z}", with: String(t.z))
        s = s.replacingOccurrences(of: "{x}", with: String(t.x))
        s = s.replacingOccurrences(of: "{y}", with: String(t.y))
        s = s.replacingOccurrences(of: "{-y}", with: String((1 << t.z) - 1 - t.y))
        s = s.replacingOccurrences(of: "{r}", with: retina ? "@2x" : "")
        if !subdomains.isEmpty { s = s.replacingOccurrences(of: "{s}", with: subdomains[(t.x + t.y) % subdomains.count]) }
        return s
    }
}

/// Named tile services, with the terms under which they may be used.
public struct TilePreset: Sendable {
    public var name: String
    public var url: String
    public var subdomains: [String]?
    public var attribution: String
    public var maxZoom: Int
    public var tileSize: Int
    /// Where the terms of use are, in short.
    public var terms: String

    public static let all: [TilePreset] = [
        TilePreset(name: "osm", url: "https://tile.openstreetmap.org/{z}/{x}/{y}.png", subdomains: nil,
                   attribution: "© OpenStreetMap contributors", maxZoom: 19, tileSize: 256,
                   terms: "OSMF Tile Usage Policy (operations.osmfoundation.org/policies/tiles): light use, no bulk downloads, identify your app, cache tiles"),
        TilePreset(name: "carto-light", url: "https://{s}.basemaps.cartocdn.com/light_all/{z}/{x}/{y}{r}.png",
                   subdomains: ["a", "b", "c", "d"], attribution: "© OpenStreetMap contributors © CARTO",
                   maxZoom: 20, tileSize: 256,
                   terms: "CARTO basemaps (github.com/CartoDB/basemap-styles): free for non-commercial use up to 75,000 views a month; commercial use needs a CARTO licence"),
        TilePreset(name: "carto-dark", url: "https://{s}.basemaps.cartocdn.com/dark_all/{z}/{x}/{y}{r}.png",
                   subdomains: ["a", "b", "c", "d"], attribution: "© OpenStreetMap contributors © CARTO",
                   maxZoom: 20, tileSize: 256,
                   terms: "as carto-light"),
        TilePreset(name: "opentopomap", url: "https://{s}.tile.opentopomap.org/{z}/{x}/{y}.png",
                   subdomains: ["a", "b", "c"],
                   attribution: "© OpenStreetMap contributors, SRTM | © OpenTopoMap (CC-BY-SA)",
                   maxZoom: 17, tileSize: 256,
                   terms: "CC-BY-SA map style (opentopomap.org/about): fair use, no bulk downloads"),
    ]

    public static func named(_ name: String) -> TilePreset? { all.first { $0.name == name.lowercased() } }
}
