import Foundation
import MapRender
import MapRenderCore

/// The part of a static map URL after `/static/`: `[{overlays}/]{view}/{width}x{height}[@2x][.{format}]`,
/// with its query, turned into the options of the one table (`size`, `scale`, `center`, `zoom`,
/// `bbox`, then the query's) and the overlays.
///
/// The view is `{lon},{lat},{zoom}` (then `,0` bearing and `,0` pitch, which Mapbox URLs may
/// carry: others are refused, the map is flat and north-up), `[{west},{south},{east},{north}]`,
/// or `auto` (fitted to the overlays and data). Without an extension the image is a PNG, as the
/// Mapbox API's.
public struct StaticURL: Sendable {
    public var overlays: [Overlay] = []
    /// The overlay segment as given (for messages and the cache key).
    public var format: OutputFormat = .png
    /// Options from the path, then the query's, in order, by table name.
    public var options: [(name: String, values: [String])] = []
    /// The view is `auto`.
    public var auto = false

    /// Query parameters of the Mapbox API that change nothing here, accepted and ignored so
    /// its URLs work as they are: the access token and the logo switch.
    public static let ignoredQuery: Set<String> = ["access_token", "logo"]

    /// - Parameter segments: the path's segments after `static`, still percent-encoded.
    /// - Parameter query: the raw query (without `?`).
    public init(segments: [Substring], query: String?) throws(ServeError) {
        guard segments.count == 2 || segments.count == 3 else {
            throw ServeError(ServeError.badRequest, "expected /static/[OVERLAYS/]VIEW/WIDTHxHEIGHT[@2x][.png|.svg|.pdf], got \(segments.count) path segments after /static/")
        }
        if segments.count == 3 {
            do {
                overlays = try Overlay.parseList(String(segments[0]))
            } catch {
                throw ServeError(ServeError.badRequest, error.description)
            }
        }
        let pathOptions = try Self.size(String(segments[segments.count - 1]), format: &format)
            + Self.view(String(segments[segments.count - 2]), auto: &auto)
        let fromPath = Set(pathOptions.map(\.name))
        let query = try Self.query(query)
        for (name, _) in query {
            if ["size", "center", "zoom", "bbox"].contains(name) || (name == "scale" && fromPath.contains("scale")) {
                throw ServeError(ServeError.badRequest, "\(name): given by the URL's path (VIEW/WIDTHxHEIGHT[@2x]); remove it from the query")
            }
        }
        options = pathOptions + query
    }

    /// `600x400`, `600x400@2x`, `600x400.svg`, `600x400@2x.png`.
    static func size(_ raw: String, format: inout OutputFormat) throws(ServeError) -> [(name: String, values: [String])] {
        var text = raw
        if let dot = text.lastIndex(of: ".") {
            let ext = String(text[text.index(after: dot)...]).lowercased()
            guard let f = OutputFormat(rawValue: ext == "jpg" ? "jpeg" : ext) else {
                throw ServeError(ServeError.badRequest, "unknown image format '.\(ext)': expected \(OutputFormat.allCases.map { "." + $0.rawValue }.joined(separator: ", "))")
            }
            format = f
            text = String(text[..<dot])
        }
        var out: [(name: String, values: [String])] = []
        if let at = text.firstIndex(of: "@") {
            let density = text[text.index(after: at)...]
            guard density == "2x" else { throw ServeError(ServeError.badRequest, "expected @2x after the size, got '@\(density)'") }
            out.append(("scale", ["2"]))
            text = String(text[..<at])
        }
        return [("size", [text])] + out
    }

    /// `auto`, `[w,s,e,n]` (brackets may be percent-encoded), `lon,lat,zoom[,bearing[,pitch]]`.
    static func view(_ raw: String, auto: inout Bool) throws(ServeError) -> [(name: String, values: [String])] {
        guard let text = raw.removingPercentEncoding else { throw ServeError(ServeError.badRequest, "the view is not valid percent-encoding") }
        if text == "auto" {
            auto = true
            return []
        }
        if text.hasPrefix("[") && text.hasSuffix("]") {
            return [("bbox", [String(text.dropFirst().dropLast())])]
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard (3...5).contains(parts.count) else {
            throw ServeError(ServeError.badRequest, "expected the view as LON,LAT,ZOOM[,BEARING[,PITCH]], [WEST,SOUTH,EAST,NORTH] or auto, got '\(text.prefix(80))'")
        }
        for (k, what) in [(3, "bearing"), (4, "pitch")] where parts.count > k {
            guard let v = Double(parts[k]), v == 0 else {
                throw ServeError(ServeError.badRequest, "\(what) \(parts[k]) is not supported: maprender draws flat, north-up maps (give 0 or leave it out)")
            }
        }
        // The table's `center` is LAT,LON.
        return [("center", ["\(parts[1]),\(parts[0])"]), ("zoom", [parts[2]])]
    }

    /// `a=1&b=2&b=3`: names with their values in order, percent-decoded (`+` is a space).
    static func query(_ raw: String?) throws(ServeError) -> [(name: String, values: [String])] {
        guard let raw, !raw.isEmpty else { return [] }
        var out: [(name: String, values: [String])] = []
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(kv[0]), let value = decode(kv.count > 1 ? kv[1] : "") else {
                throw ServeError(ServeError.badRequest, "the query is not valid percent-encoding near '\(pair.prefix(40))'")
            }
            if Self.ignoredQuery.contains(name) { continue }
            if let k = out.firstIndex(where: { $0.name == name }) { out[k].values.append(value) } else { out.append((name, [value])) }
        }
        return out
    }

    static func decode(_ s: Substring) -> String? {
        String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
