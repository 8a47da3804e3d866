import Foundation
import MapRender
import MapRenderCore
import Yams

/// Everything `maprender serve` is started with: the flags, or the same keys in a YAML file
/// (`--config serve.yaml`; a flag given on the command line wins over the file).
///
/// ```yaml
/// host: 0.0.0.0
/// port: 8080
/// jobs: 2
/// data: { cities: data/cities.csv }
/// style: { dark: styles/dark.json }
/// max-size: 2048
/// ```
public struct ServeConfiguration: Sendable, Equatable {
    /// Address to listen on (default: loopback only).
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one (printed when listening).
    public var port = 8080
    /// Renders at once, each on a thread of its own (default: the cores).
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Renders waiting for a thread, at most; past it a request gets 503 with Retry-After.
    public var queue = 64
    /// Seconds a request may wait and render in all before a 503.
    public var timeout = 10.0
    /// Connections open at once, at most; more wait in the kernel's backlog until one closes.
    public var maxConnections = 512
    /// Seconds a client has to send a whole request (head and body) from when it connects, or
    /// from the end of the previous response on a kept-alive connection (slow clients, slowloris).
    public var readTimeout = 10.0
    /// Longest URL, bytes (414 past it).
    public var maxURL = 16384
    /// Largest request body, bytes (413 past it).
    public var maxBody = 8 << 20
    /// Most positions (pins, path vertices, GeoJSON coordinates, CSV rows) in one request.
    public var maxPoints = 100_000
    /// Largest image side in device pixels (width or height times scale).
    public var maxSize = 4096
    /// Bytes of rendered images kept in memory for repeated requests (0: none).
    public var cacheBytes = 256 << 20
    /// `Cache-Control: max-age` in seconds for maps.
    public var maxAge = 86400
    /// Named data sets, styles and tile sources (NAME -> file or source), fixed at start.
    public var data: [String: String] = [:]
    public var styles: [String: String] = [:]
    public var tiles: [String: String] = [:]
    /// One line per request on standard error.
    public var accessLog = true
    /// Hosts whose images `url-` markers may show (`--url-markers HOST,...`): `example.com` (any
    /// port), `example.com:8443` (that port), `*.example.com` (its subdomains). Empty: `url-`
    /// markers are refused, and the server fetches nothing a request names.
    public var urlMarkerHosts: [String] = []

    public init() {}

    /// `HOST[,HOST...]` of `--url-markers`, each checked: a host name or address in lower case,
    /// an optional `:PORT`, an optional `*.` in front of a name.
    public static func parseHosts(_ text: String) throws -> [String] {
        var out: [String] = []
        for raw in text.split(separator: ",") {
            let h = raw.trimmingCharacters(in: .whitespaces).lowercased()
            var name = Substring(h)
            guard !h.contains("/") else {
                throw MapRenderError(.usage, "--url-markers: '\(h)' is not a host name (example.com, *.example.com, example.com:8443, 127.0.0.1): give hosts, not URLs")
            }
            if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]") {
                let port = name[name.index(after: colon)...]
                guard let p = Int(port), (1...65535).contains(p) else {
                    throw MapRenderError(.usage, "--url-markers: '\(h)': the port must be 1...65535")
                }
                name = name[..<colon]
            }
            if name.hasPrefix("*.") { name = name.dropFirst(2) }
            guard !name.isEmpty, name.count <= 253, !name.contains("*"), !name.contains("/"),
                  name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.[]:".contains($0)) }) else {
                throw MapRenderError(.usage, "--url-markers: '\(h)' is not a host name (example.com, *.example.com, example.com:8443, 127.0.0.1)")
            }
            if !out.contains(h) { out.append(h) }
        }
        guard !out.isEmpty else { throw MapRenderError(.usage, "--url-markers: expected HOST[,HOST...], got '\(text)'") }
        return out
    }

    /// Whether a `url-` marker may be fetched from `host` (lower case, `:port` when the URL gives one).
    public func allowsMarkerHost(_ host: String) -> Bool {
        let name = host.hasSuffix("]") || !host.contains(":") ? host : String(host[..<host.lastIndex(of: ":")!])
        return urlMarkerHosts.contains { pattern in
            let exact = pattern.contains(":") && !pattern.hasSuffix("]")
            let subject = exact ? host : name
            if pattern.hasPrefix("*.") { return subject.hasSuffix(pattern.dropFirst(1)) }
            return subject == pattern
        }
    }

    /// The keys of a `--config` file: the long flag names.
    public static let keys = ["host", "port", "jobs", "queue", "timeout", "max-connections", "read-timeout", "max-url",
                              "max-body", "max-points", "max-size", "cache-mb", "max-age", "data", "style", "tiles",
                              "access-log", "url-markers"]

    /// Reads a YAML (or JSON) file of `keys`; each value is checked as its flag's is.
    public static func load(path: String) throws -> ServeConfiguration {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw MapRenderError(.inputUnreadable, "cannot read \(path): no such file or not readable")
        }
        let node: Any?
        do {
            node = try Yams.load(yaml: text)
        } catch {
            throw MapRenderError(.style, "\(path): not valid YAML: \(error)")
        }
        guard let map = node as? [String: Any] else {
            throw MapRenderError(.style, "\(path): expected a mapping of settings (\(keys.joined(separator: ", ")))")
        }
        var c = ServeConfiguration()
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        for key in map.keys.sorted() {
            let value = map[key]!
            func fail(_ what: String) -> MapRenderError { MapRenderError(.style, "\(path): \(key): expected \(what), got \(value)") }
            func int(_ range: ClosedRange<Int>) throws -> Int {
                guard let i = value as? Int, range.contains(i) else { throw fail("a whole number in \(range.lowerBound)...\(range.upperBound)") }
                return i
            }
            func double(_ range: ClosedRange<Double>) throws -> Double {
                guard let d = (value as? Double) ?? (value as? Int).map(Double.init), range.contains(d) else {
                    throw fail("a number in \(range.lowerBound)...\(range.upperBound)")
                }
                return d
            }
            func names() throws -> [String: String] {
                guard let m = value as? [String: Any] else { throw fail("a mapping of NAME: FILE") }
                var out: [String: String] = [:]
                for (k, v) in m {
                    guard let s = v as? String ?? (v as? CustomStringConvertible)?.description else { throw fail("a mapping of NAME: FILE") }
                    try checkName(k, flag: key)
                    // Files relative to the config file's folder; tile presets and URLs as they are.
                    let isFile = key != "tiles" || (!s.contains("://") && (s.contains("/") || s.contains(".")))
                    out[k] = isFile && !s.hasPrefix("/") ? base.appendingPathComponent(s).standardizedFileURL.path : s
                }
                return out
            }
            switch key {
            case "host":
                guard let s = value as? String, !s.isEmpty else { throw fail("an address") }
                c.host = s
            case "port": c.port = try int(0...65535)
            case "jobs": c.jobs = try int(1...256)
            case "queue": c.queue = try int(0...100_000)
            case "timeout": c.timeout = try double(0.001...3600)
            case "max-connections": c.maxConnections = try int(1...1_000_000)
            case "read-timeout": c.readTimeout = try double(0.001...3600)
            case "max-url": c.maxURL = try int(256...(64 << 20))
            case "max-body": c.maxBody = try int(0...(1 << 30))
            case "max-points": c.maxPoints = try int(1...100_000_000)
            case "max-size": c.maxSize = try int(1...32767)
            case "cache-mb": c.cacheBytes = try int(0...1_000_000) << 20
            case "max-age": c.maxAge = try int(0...31_536_000)
            case "data": c.data = try names()
            case "style": c.styles = try names()
            case "tiles": c.tiles = try names()
            case "url-markers":
                if let list = value as? [Any] {
                    c.urlMarkerHosts = try parseHosts(list.map { "\($0)" }.joined(separator: ","))
                } else if let text = value as? String {
                    c.urlMarkerHosts = try parseHosts(text)
                } else {
                    throw fail("a list of hosts")
                }
            case "access-log":
                guard let b = value as? Bool else { throw fail("true or false") }
                c.accessLog = b
            default:
                let hint = KeySuggestion.closest(to: key, among: keys).map { "; did you mean '\($0)'?" }
                    ?? "; expected one of: \(keys.joined(separator: ", "))"
                throw MapRenderError(.style, "\(path): \(key): unknown key\(hint)")
            }
        }
        return c
    }

    /// `NAME=FILE` of `--data`, `--style`, `--tiles`.
    public static func parseNamed(_ text: String, flag: String) throws -> (String, String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex, text.index(after: eq) != text.endIndex else {
            throw MapRenderError(.usage, "--\(flag): expected NAME=\(flag == "tiles" ? "SOURCE" : "FILE"), got '\(text)'")
        }
        let name = String(text[..<eq])
        try checkName(name, flag: flag)
        return (name, String(text[text.index(after: eq)...]))
    }

    /// Names appear in URLs (`/maps/NAME/static/...`, `style=NAME`): letters, digits, `-`, `_`, `.`.
    static func checkName(_ name: String, flag: String) throws {
        guard !name.isEmpty, name.count <= 64, name != ".", name != "..",
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            throw MapRenderError(.usage, "--\(flag): a name must be 1 to 64 letters, digits, '-', '_' or '.', got '\(name)'")
        }
    }

    /// The names a request may use.
    public var requestNames: RequestNames { RequestNames(styles: styles, tiles: tiles, data: data) }
}
