import Foundation

/// Cluster results as GeoJSON text, as supercluster's `getClusters` output reads after `JSON.stringify`.
///
/// A cluster: `{"type":"Feature","id":164,"properties":{<aggregates>,"cluster":true,"cluster_id":164,
/// "point_count":16,"point_count_abbreviated":16},"geometry":{"type":"Point","coordinates":[lng,lat]}}`
/// (`point_count_abbreviated` is a number below 1000 and a string like `"1.5k"` from there on).
/// An unclustered point: its original feature, with its `id` when it has one and its properties
/// with their JSON types (missing ones left out, arrays and objects as they were read).
/// Numbers are written as JavaScript writes them (shortest round trip, `1e+21`, `1e-7`).
public enum ClusterGeoJSON {
    /// A FeatureCollection of the items, in their order.
    public static func featureCollection(items: [ClusterItem], points: PointSet,
                                         aggregates: [ClusterAggregate] = []) -> String {
        var s = "{\"type\":\"FeatureCollection\",\"features\":["
        for (n, item) in items.enumerated() {
            if n > 0 { s += "," }
            feature(item, points: points, aggregates: aggregates, into: &s)
        }
        s += "]}"
        return s
    }

    /// One item as a GeoJSON Feature. Aggregates are written in the order given (any others the
    /// item carries follow, sorted by name).
    public static func feature(_ item: ClusterItem, points: PointSet, aggregates: [ClusterAggregate] = [],
                               into s: inout String) {
        if let p = item.pointIndex {
            s += "{\"type\":\"Feature\","
            let id = points.id(at: p)
            if id != .missing {
                s += "\"id\":"
                value(id, into: &s)
                s += ","
            }
            s += "\"properties\":{"
            var first = true
            for (name, v) in points.properties.row(p) {
                if !first { s += "," }
                first = false
                string(name, into: &s)
                s += ":"
                value(v, into: &s)
            }
            s += "},\"geometry\":{\"type\":\"Point\",\"coordinates\":["
            s += number(points.lon[p]) + "," + number(points.lat[p]) + "]}}"
            return
        }
        s += "{\"type\":\"Feature\",\"id\":\(item.id),\"properties\":{"
        let named = aggregates.map(\.propertyName)
        let names = named.filter { item.aggregates[$0] != nil }
            + item.aggregates.keys.filter { !named.contains($0) }.sorted()
        for name in names {
            string(name, into: &s)
            s += ":" + number(item.aggregates[name]!) + ","
        }
        s += "\"cluster\":true,\"cluster_id\":\(item.id),\"point_count\":\(item.count),\"point_count_abbreviated\":"
        if item.count >= 1000 { string(item.abbreviatedCount, into: &s) } else { s += String(item.count) }
        s += "},\"geometry\":{\"type\":\"Point\",\"coordinates\":[" + number(item.lon) + "," + number(item.lat) + "]}}"
    }

    /// A property value as JSON (`.missing` as `null`; `.json` inserted as it is).
    static func value(_ v: PropertyValue, into s: inout String) {
        switch v {
        case .missing, .null: s += "null"
        case .bool(let b): s += b ? "true" : "false"
        case .number(let d): s += number(d)
        case .string(let t): string(t, into: &s)
        case .json(let t): s += t
        }
    }

    /// A string as `JSON.stringify` writes it.
    static func string(_ t: String, into s: inout String) {
        s += "\""
        var run = t.unicodeScalars.startIndex
        let scalars = t.unicodeScalars
        var i = run
        while i < scalars.endIndex {
            let c = scalars[i]
            let escape: String?
            switch c {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\u{08}": escape = "\\b"
            case "\u{0C}": escape = "\\f"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            default:
                if c.value < 0x20 {
                    let hex = String(c.value, radix: 16)
                    escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escape = nil
                }
            }
            if let e = escape {
                s.unicodeScalars.append(contentsOf: scalars[run..<i])
                s += e
                run = scalars.index(after: i)
            }
            i = scalars.index(after: i)
        }
        s.unicodeScalars.append(contentsOf: scalars[run..<scalars.endIndex])
        s += "\""
    }

    /// A number as JavaScript's `String(n)` / `JSON.stringify` writes it: the shortest digits that
    /// read back as the same double; plain notation from 1e-7 up to below 1e21, exponent notation
    /// (`1e+21`, `1.5e-7`) outside; `-0` as `0`; NaN and infinities as `null` (as JSON.stringify).
    public static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == 0 { return "0" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        // Swift's description has the shortest round-trip digits too; only the notation differs.
        var text = d.description
        var negative = false
        if text.hasPrefix("-") { negative = true; text.removeFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...])!
            text = String(text[..<e])
        }
        let intPart: Substring, fracPart: Substring
        if let dot = text.firstIndex(of: ".") {
            intPart = text[..<dot]
            fracPart = text[text.index(after: dot)...]
        } else {
            intPart = Substring(text)
            fracPart = ""
        }
        var digits = Array((intPart + fracPart).utf8)
        var point = intPart.count + exponent          // value = 0.d1d2... × 10^point
        while let f = digits.first, f == UInt8(ascii: "0") { digits.removeFirst(); point -= 1 }
        while let l = digits.last, l == UInt8(ascii: "0") { digits.removeLast() }
        let k = digits.count
        let ds = String(decoding: digits, as: UTF8.self)
        var out = negative ? "-" : ""
        if k <= point && point <= 21 {
            out += ds + String(repeating: "0", count: point - k)
        } else if 0 < point && point <= 21 {
            out += ds.prefix(point) + "." + ds.dropFirst(point)
        } else if -6 < point && point <= 0 {
            out += "0." + String(repeating: "0", count: -point) + ds
        } else {
            let e = point - 1
            out += String(ds.prefix(1)) + (k > 1 ? "." + ds.dropFirst() : "") + "e" + (e < 0 ? "-" : "+") + String(abs(e))
        }
        return out
    }
}
