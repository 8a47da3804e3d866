import Foundation
import MapRenderCore

/// One overlay of a static map URL, in the Mapbox Static Images API's grammar, so existing
/// clients and URL builders work unchanged:
///
/// - `pin-s(lon,lat)`, `pin-l-a+f00(lon,lat)`: a pin, small or large, with an optional label
///   (a letter, a number 0...99 or an icon name, drawn as the pin's label text) and colour
///   (3 or 6 hex digits);
/// - `path-5+f44-0.5+0f0-0.25(polyline)`: a line from a URL-encoded Google polyline
///   (precision 5) with optional stroke width, stroke colour, stroke opacity, then fill colour
///   and fill opacity (a fill closes it into a polygon);
/// - `geojson(...)`: URL-encoded GeoJSON (a geometry, a feature or a feature collection; its
///   simplestyle properties are drawn);
/// - `url-https%3A%2F%2F...(lon,lat)`: a marker image from a percent-encoded http or https URL,
///   centred on the position (the Mapbox API's rule); the parser checks the URL's form, the
///   server decides whether it fetches it (`maprender serve --url-markers HOST,...`).
///
/// Overlays are separated by commas outside parentheses; the list is drawn in order.
public enum Overlay: Sendable, Equatable {
    case pin(Pin)
    case path(Path)
    case geoJSON(String)
    case urlMarker(URLMarker)

    /// `url-{percent-encoded URL}(lon,lat)`.
    public struct URLMarker: Sendable, Equatable {
        /// Decoded: `https://example.com/marker.png`.
        public var url: String
        /// The host in lower case, with `:port` when the URL gives one.
        public var host: String
        public var lon: Double
        public var lat: Double

        public init(url: String, host: String, lon: Double, lat: Double) {
            self.url = url; self.host = host; self.lon = lon; self.lat = lat
        }
    }

    /// The longest marker URL, bytes (decoded).
    public static let maxMarkerURLBytes = 2048

    /// The feature property that names a `url-` marker's icon (its URL) in `featureCollection`.
    public static let markerURLProperty = "marker-url"

    public struct Pin: Sendable, Equatable {
        public var large: Bool
        public var label: String?
        /// `#rrggbb`.
        public var color: String?
        public var lon: Double
        public var lat: Double

        public init(large: Bool, label: String? = nil, color: String? = nil, lon: Double, lat: Double) {
            self.large = large; self.label = label; self.color = color; self.lon = lon; self.lat = lat
        }
    }

    public struct Path: Sendable, Equatable {
        public var strokeWidth: Double?
        public var strokeColor: String?
        public var strokeOpacity: Double?
        public var fillColor: String?
        public var fillOpacity: Double?
        /// lon, lat, lon, lat, ...
        public var coordinates: [Double]

        public init(strokeWidth: Double? = nil, strokeColor: String? = nil, strokeOpacity: Double? = nil,
                    fillColor: String? = nil, fillOpacity: Double? = nil, coordinates: [Double]) {
            self.strokeWidth = strokeWidth; self.strokeColor = strokeColor; self.strokeOpacity = strokeOpacity
            self.fillColor = fillColor; self.fillOpacity = fillOpacity; self.coordinates = coordinates
        }
    }

    /// How many positions the overlay holds (a pin 1, a path its vertices, GeoJSON its
    /// coordinate pairs, counted from its text), for the server's points-per-request limit.
    public var positionCount: Int {
        switch self {
        case .pin, .urlMarker: return 1
        case .path(let p): return p.coordinates.count / 2
        case .geoJSON(let text): return Overlay.countPositions(text)
        }
    }

    /// The longest overlay list accepted, in bytes of the URL segment (the server's URL limit
    /// comes first; this bounds the parser when it is used on its own, as the fuzzer does).
    public static let maxBytes = 1 << 20

    /// Parses the overlay segment of a URL as it arrives (still percent-encoded). Errors name
    /// the overlay by position and text: `overlay 2 (pin-x(1,2)): unknown overlay 'pin-x' ...`.
    public static func parseList(_ segment: String) throws(OverlayError) -> [Overlay] {
        guard segment.utf8.count <= maxBytes else {
            throw OverlayError(index: nil, text: nil, problem: "the overlays are \(segment.utf8.count) bytes, more than \(maxBytes)")
        }
        var out: [Overlay] = []
        for (n, part) in try split(segment).enumerated() {
            do {
                out.append(try parse(part))
            } catch let e as OverlayProblem {
                throw OverlayError(index: n + 1, text: part, problem: e.message)
            } catch {
                throw OverlayError(index: n + 1, text: part, problem: "\(error)")
            }
        }
        return out
    }

    /// Splits at commas outside parentheses; an unbalanced parenthesis is an error.
    static func split(_ s: String) throws(OverlayError) -> [String] {
        var parts: [String] = [], depth = 0, current = ""
        for ch in s {
            switch ch {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth < 0 {
                    throw OverlayError(index: parts.count + 1, text: current + ")", problem: "a ')' without its '('")
                }
            case "," where depth == 0:
                guard !current.isEmpty else {
                    throw OverlayError(index: parts.count + 1, text: "", problem: "an empty overlay (two commas, or a comma at an end)")
                }
                parts.append(current); current = ""
                continue
            default: break
            }
            current.append(ch)
        }
        guard depth == 0 else { throw OverlayError(index: parts.count + 1, text: current, problem: "a '(' without its ')'") }
        guard !current.isEmpty else {
            throw OverlayError(index: parts.count + 1, text: "", problem: "an empty overlay (two commas, or a comma at an end)")
        }
        parts.append(current)
        return parts
    }

    struct OverlayProblem: Error { var message: String }

    static func fail(_ m: String) -> OverlayProblem { OverlayProblem(message: m) }

    /// One overlay: `NAME(ARGUMENT)`.
    static func parse(_ text: String) throws -> Overlay {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else {
            throw fail("expected NAME(...) such as pin-s(lon,lat), path-5+f00(polyline) or geojson(...)")
        }
        let head = String(text[..<open])
        let argument = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        if head == "geojson" {
            guard let json = argument.removingPercentEncoding else { throw fail("the GeoJSON is not valid percent-encoding") }
            guard !json.isEmpty else { throw fail("the GeoJSON is empty") }
            return .geoJSON(json)
        }
        if head.hasPrefix("url-") {
            return .urlMarker(try urlMarker(String(head.dropFirst(4)), argument))
        }
        if head == "pin-s" || head == "pin-l" || head.hasPrefix("pin-s-") || head.hasPrefix("pin-l-")
            || head.hasPrefix("pin-s+") || head.hasPrefix("pin-l+") {
            return .pin(try pin(head, argument))
        }
        if head == "path" || head.hasPrefix("path-") || head.hasPrefix("path+") {
            return .path(try path(head, argument))
        }
        throw fail("unknown overlay '\(head)': expected pin-s, pin-l, path, geojson or url")
    }

    /// `pin-s`, `pin-l`, then `-LABEL`, then `+COLOR`.
    static func pin(_ head: String, _ argument: String) throws -> Pin {
        var rest = head.dropFirst(5)   // after "pin-s" / "pin-l"
        var label: String?, color: String?
        if let plus = rest.lastIndex(of: "+") {
            color = try hexColor(String(rest[rest.index(after: plus)...]), what: "the pin colour")
            rest = rest[..<plus]
        }
        if rest.hasPrefix("-") {
            let l = String(rest.dropFirst())
            guard !l.isEmpty else { throw fail("an empty label after '-'") }
            let isNumber = Int(l).map { (0...99).contains($0) } ?? false
            let isWord = l.count <= 64 && l.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                && l.first?.isLetter == true
            guard isNumber || isWord else {
                throw fail("the label must be a letter, a number 0...99 or an icon name (letters, digits and '-'), got '\(l)'")
            }
            label = l
        } else if !rest.isEmpty {
            throw fail("expected -LABEL or +COLOR after '\(head.prefix(5))', got '\(rest)'")
        }
        let (lon, lat) = try position(argument)
        return Pin(large: head.hasPrefix("pin-l"), label: label, color: color, lon: lon, lat: lat)
    }

    /// `url-{percent-encoded URL}`: an absolute http or https URL with a host and no user name or
    /// password, at most `maxMarkerURLBytes` decoded.
    static func urlMarker(_ encoded: String, _ argument: String) throws -> URLMarker {
        guard let url = encoded.removingPercentEncoding else { throw fail("the marker URL is not valid percent-encoding") }
        guard !url.isEmpty else { throw fail("the marker URL is empty: expected url-{percent-encoded URL}(lon,lat)") }
        guard url.utf8.count <= maxMarkerURLBytes else {
            throw fail("the marker URL is \(url.utf8.count) bytes, more than \(maxMarkerURLBytes)")
        }
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw fail("the marker URL has spaces, control or non-ASCII characters: percent-encode them in the URL")
        }
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), let host = c.host?.lowercased(), !host.isEmpty else {
            throw fail("the marker URL '\(url.prefix(80))' is not an absolute URL (expected https://HOST/PATH)")
        }
        guard scheme == "https" || scheme == "http" else {
            throw fail("the marker URL's scheme is '\(scheme)': only http and https images are fetched")
        }
        guard c.user == nil, c.password == nil else { throw fail("the marker URL has a user name or password; give a URL without them") }
        let (lon, lat) = try position(argument)
        return URLMarker(url: url, host: c.port.map { "\(host):\($0)" } ?? host, lon: lon, lat: lat)
    }

    /// `lon,lat`, each in range.
    static func position(_ argument: String) throws -> (Double, Double) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let lon = number(parts[0]), let lat = number(parts[1]) else {
            throw fail("expected (lon,lat) in degrees, got (\(argument))")
        }
        guard abs(lon) <= 180 else { throw fail("the longitude must be in -180...180, got \(parts[0])") }
        guard abs(lat) <= 90 else { throw fail("the latitude must be in -90...90, got \(parts[1])") }
        return (lon, lat)
    }

    /// A decimal number as written in a URL (no `nan`, `inf`, hex or `+`).
    static func number(_ s: Substring) -> Double? {
        guard !s.isEmpty, s.count <= 32, s.allSatisfy({ "0123456789.-eE".contains($0) }), let d = Double(s), d.isFinite else { return nil }
        return d
    }

    /// `path`, then `-WIDTH`, `+COLOR`, `-OPACITY`, `+FILL`, `-FILLOPACITY`, each optional in
    /// that order (the Mapbox form `path-{strokeWidth}+{strokeColor}-{strokeOpacity}+{fillColor}-{fillOpacity}`).
    static func path(_ head: String, _ argument: String) throws -> Path {
        var p = Path(coordinates: [])
        // Tokens: each '-' or '+' starts one; which field it fills depends on what came before.
        var tokens: [(sign: Character, text: String)] = []
        for ch in head.dropFirst(4) {
            if ch == "-" || ch == "+" {
                tokens.append((ch, ""))
            } else if tokens.isEmpty {
                throw fail("expected '-' or '+' after 'path', got '\(ch)'")
            } else {
                tokens[tokens.count - 1].text.append(ch)
            }
        }
        // Fields in order: width(-), stroke colour(+), stroke opacity(-), fill(+), fill opacity(-).
        let fields: [(sign: Character, name: String)] = [("-", "stroke width"), ("+", "stroke colour"), ("-", "stroke opacity"),
                                                         ("+", "fill colour"), ("-", "fill opacity")]
        var next = 0
        for t in tokens {
            guard let k = fields[next...].firstIndex(where: { $0.sign == t.sign }) else {
                throw fail("unexpected '\(t.sign)\(t.text)': the form is path-WIDTH+COLOR-OPACITY+FILL-FILLOPACITY")
            }
            // The next field of that sign: a '+' right after 'path' is the stroke colour (no width).
            switch k {
            case 0:
                guard let w = number(Substring(t.text)), w > 0, w <= 100 else {
                    throw fail("the stroke width must be a number in (0, 100], got '\(t.text)'")
                }
                p.strokeWidth = w
            case 1: p.strokeColor = try hexColor(t.text, what: "the stroke colour")
            case 2: p.strokeOpacity = try opacity(t.text, what: "the stroke opacity")
            case 3: p.fillColor = try hexColor(t.text, what: "the fill colour")
            default: p.fillOpacity = try opacity(t.text, what: "the fill opacity")
            }
            next = k + 1
        }
        guard let encoded = argument.removingPercentEncoding else { throw fail("the polyline is not valid percent-encoding") }
        guard !encoded.isEmpty else { throw fail("the polyline is empty") }
        do {
            p.coordinates = try EncodedPolyline.decode(encoded, precision: 5)
        } catch {
            throw fail("the polyline: \(error)")
        }
        guard p.coordinates.count >= 4 else { throw fail("a path needs at least two points, the polyline has \(p.coordinates.count / 2)") }
        return p
    }

    /// 3 or 6 hex digits, returned as `#rrggbb`.
    static func hexColor(_ s: String, what: String) throws -> String {
        let hex = s.lowercased()
        guard hex.count == 3 || hex.count == 6, hex.allSatisfy({ $0.isHexDigit }) else {
            throw fail("\(what) must be 3 or 6 hex digits (f00, ff0000), got '\(s)'")
        }
        return "#" + (hex.count == 3 ? hex.map { "\($0)\($0)" }.joined() : hex)
    }

    static func opacity(_ s: String, what: String) throws -> Double {
        guard let d = number(Substring(s)), (0...1).contains(d) else { throw fail("\(what) must be a number in 0...1, got '\(s)'") }
        return d
    }

    /// Coordinate pairs in GeoJSON text, counted as `[` followed by a number: an upper bound
    /// that needs no parse, for the points-per-request limit.
    public static func countPositions(_ text: String) -> Int {
        var n = 0, afterBracket = false
        for b in text.utf8 {
            if afterBracket, b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39) { n += 1 }
            if b == UInt8(ascii: "[") { afterBracket = true } else if b != 0x20 && b != 0x0A && b != 0x0D && b != 0x09 { afterBracket = false }
        }
        return n
    }
}

/// A bad overlay: which one (from 1), its text (shortened), and the problem.
public struct OverlayError: Error, CustomStringConvertible, Sendable {
    public var index: Int?
    public var text: String?
    public var problem: String

    public var description: String {
        guard let index else { return "overlay: \(problem)" }
        let t = text.map { $0.count > 60 ? String($0.prefix(57)) + "..." : $0 } ?? ""
        return "overlay \(index)\(t.isEmpty ? "" : " (\(t))"): \(problem)"
    }
}

// MARK: - As GeoJSON

extension Overlay {
    /// Pins, paths and `url-` markers as one GeoJSON FeatureCollection with simplestyle properties
    /// (`marker-color`, `marker-size`, `label`; `stroke`, `stroke-width`, `stroke-opacity`,
    /// `fill`, `fill-opacity`; a `url-` marker's URL in `marker-url`, which the server's icon
    /// expression reads), the form every other input takes; nil when there are none.
    /// A pin-s is a medium simplestyle marker (maprender's default pin), a pin-l a large one.
    public static func featureCollection(_ overlays: [Overlay]) -> String? {
        var features: [String] = []
        func num(_ d: Double) -> String { PropertyValue.format(number: d) }
        func str(_ s: String) -> String {
            var o = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": o += "\\\""
                case "\\": o += "\\\\"
                case _ where u.value < 0x20: o += String(format: "\\u%04x", u.value)
                default: o.unicodeScalars.append(u)
                }
            }
            return o + "\""
        }
        for o in overlays {
            switch o {
            case .pin(let p):
                var props = ["\"marker-size\":\(str(p.large ? "large" : "medium"))"]
                if let c = p.color { props.append("\"marker-color\":\(str(c))") }
                // A letter or a number (up to 3 characters) is drawn inside the pin, as Mapbox
                // draws it (simplestyle `marker-symbol`); an icon name, which maprender cannot
                // draw as an icon, becomes the pin's label text.
                if let l = p.label { props.append(Self.isSymbol(l) ? "\"marker-symbol\":\(str(l))" : "\"label\":\(str(l))") }
                features.append("{\"type\":\"Feature\",\"properties\":{\(props.joined(separator: ","))},"
                    + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(num(p.lon)),\(num(p.lat))]}}")
            case .path(let p):
                var props: [String] = []
                if let w = p.strokeWidth { props.append("\"stroke-width\":\(num(w))") }
                if let c = p.strokeColor { props.append("\"stroke\":\(str(c))") }
                if let o = p.strokeOpacity { props.append("\"stroke-opacity\":\(num(o))") }
                if let f = p.fillColor { props.append("\"fill\":\(str(f))") }
                if let o = p.fillOpacity { props.append("\"fill-opacity\":\(num(o))") }
                var pairs: [String] = []
                pairs.reserveCapacity(p.coordinates.count / 2 + 1)
                var i = 0
                while i + 1 < p.coordinates.count {
                    pairs.append("[\(num(p.coordinates[i])),\(num(p.coordinates[i + 1]))]")
                    i += 2
                }
                let geometry: String
                if p.fillColor != nil {
                    if pairs.first != pairs.last { pairs.append(pairs[0]) }
                    geometry = "{\"type\":\"Polygon\",\"coordinates\":[[\(pairs.joined(separator: ","))]]}"
                } else {
                    geometry = "{\"type\":\"LineString\",\"coordinates\":[\(pairs.joined(separator: ","))]}"
                }
                features.append("{\"type\":\"Feature\",\"properties\":{\(props.joined(separator: ","))},\"geometry\":\(geometry)}")
            case .urlMarker(let m):
                features.append("{\"type\":\"Feature\",\"properties\":{\"\(markerURLProperty)\":\(str(m.url))},"
                    + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(num(m.lon)),\(num(m.lat))]}}")
            case .geoJSON: continue
            }
        }
        guard !features.isEmpty else { return nil }
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
    }

    /// Whether any pin has a label drawn as text beside it, an icon name (then the map labels
    /// pins by it unless `label` is given); letters and numbers are drawn inside the pin.
    public static func hasLabels(_ overlays: [Overlay]) -> Bool {
        overlays.contains { if case .pin(let p) = $0 { return p.label.map { !isSymbol($0) } ?? false } else { return false } }
    }

    /// A pin label drawn inside the pin: a letter or a number 0...99 (Mapbox's), at most 3 characters.
    static func isSymbol(_ label: String) -> Bool {
        label.count <= 3 && label.allSatisfy { $0.isLetter || $0.isNumber }
    }
}
