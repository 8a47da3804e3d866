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
        String(decoding: featureCollectionBytes(items: items, points: points, aggregates: aggregates), as: UTF8.self)
    }

    /// The same FeatureCollection as UTF-8 bytes, built in one growing byte buffer (appends are
    /// amortised O(1), so the cost is linear in the output size).
    public static func featureCollectionBytes(items: [ClusterItem], points: PointSet,
                                              aggregates: [ClusterAggregate] = []) -> [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(64 + items.count * 160)
        append("{\"type\":\"FeatureCollection\",\"features\":[", to: &b)
        let names = Names(aggregates: aggregates)
        for (n, item) in items.enumerated() {
            if n > 0 { b.append(UInt8(ascii: ",")) }
            feature(item, points: points, names: names, into: &b)
        }
        append("]}", to: &b)
        return b
    }

    /// One item as a GeoJSON Feature. Aggregates are written in the order given (any others the
    /// item carries follow, sorted by name).
    public static func feature(_ item: ClusterItem, points: PointSet, aggregates: [ClusterAggregate] = [],
                               into s: inout String) {
        var b: [UInt8] = []
        feature(item, points: points, names: Names(aggregates: aggregates), into: &b)
        s += String(decoding: b, as: UTF8.self)
    }

    /// The aggregates' property names, in the order given.
    struct Names {
        let named: [String]
        init(aggregates: [ClusterAggregate]) { named = aggregates.map(\.propertyName) }
    }

    static func feature(_ item: ClusterItem, points: PointSet, names: Names, into b: inout [UInt8]) {
        if let p = item.pointIndex {
            append("{\"type\":\"Feature\",", to: &b)
            let id = points.id(at: p)
            if id != .missing {
                append("\"id\":", to: &b)
                value(id, into: &b)
                b.append(UInt8(ascii: ","))
            }
            append("\"properties\":{", to: &b)
            var first = true
            let table = points.properties
            for c in table.names.indices {
                let v = table.value(column: c, row: p)
                if case .missing = v { continue }
                if !first { b.append(UInt8(ascii: ",")) }
                first = false
                string(table.names[c], into: &b)
                b.append(UInt8(ascii: ":"))
                value(v, into: &b)
            }
            append("},\"geometry\":{\"type\":\"Point\",\"coordinates\":[", to: &b)
            append(number(points.lon[p]), to: &b)
            b.append(UInt8(ascii: ","))
            append(number(points.lat[p]), to: &b)
            append("]}}", to: &b)
            return
        }
        append("{\"type\":\"Feature\",\"id\":", to: &b)
        append(String(item.id), to: &b)
        append(",\"properties\":{", to: &b)
        if !item.aggregates.isEmpty {
            let present = names.named.filter { item.aggregates[$0] != nil }
            let others = item.aggregates.keys.filter { !names.named.contains($0) }.sorted()
            for name in present + others {
                string(name, into: &b)
                b.append(UInt8(ascii: ":"))
                append(number(item.aggregates[name]!), to: &b)
                b.append(UInt8(ascii: ","))
            }
        }
        append("\"cluster\":true,\"cluster_id\":", to: &b)
        append(String(item.id), to: &b)
        append(",\"point_count\":", to: &b)
        append(String(item.count), to: &b)
        append(",\"point_count_abbreviated\":", to: &b)
        if item.count >= 1000 { string(item.abbreviatedCount, into: &b) } else { append(String(item.count), to: &b) }
        append("},\"geometry\":{\"type\":\"Point\",\"coordinates\":[", to: &b)
        append(number(item.lon), to: &b)
        b.append(UInt8(ascii: ","))
        append(number(item.lat), to: &b)
        append("]}}", to: &b)
    }

    @inline(__always)
    static func append(_ t: String, to b: inout [UInt8]) {
        var t = t
        t.withUTF8 { b.append(contentsOf: $0) }
    }

    /// A property value as JSON (`.missing` as `null`; `.json` inserted as it is).
    static func value(_ v: PropertyValue, into b: inout [UInt8]) {
        switch v {
        case .missing, .null: append("null", to: &b)
        case .bool(let t): append(t ? "true" : "false", to: &b)
        case .number(let d): append(number(d), to: &b)
        case .string(let t): string(t, into: &b)
        case .json(let t): append(t, to: &b)
        }
    }

    /// A string as `JSON.stringify` writes it.
    static func string(_ t: String, into s: inout String) {
        var b: [UInt8] = []
        string(t, into: &b)
        s += String(decoding: b, as: UTF8.self)
    }

    /// A string as `JSON.stringify` writes it, as UTF-8 bytes. Only ASCII bytes are escaped, so
    /// the string's UTF-8 is copied in runs between escapes.
    static func string(_ t: String, into b: inout [UInt8]) {
        b.append(UInt8(ascii: "\""))
        var t = t
        t.withUTF8 { u in
            var run = 0
            for i in 0..<u.count {
                let c = u[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                b.append(contentsOf: UnsafeBufferPointer(rebasing: u[run..<i]))
                b.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""): b.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): b.append(UInt8(ascii: "\\"))
                case 0x08: b.append(UInt8(ascii: "b"))
                case 0x0C: b.append(UInt8(ascii: "f"))
                case 0x0A: b.append(UInt8(ascii: "n"))
                case 0x0D: b.append(UInt8(ascii: "r"))
                case 0x09: b.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    b.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(c >> 4)], hex[Int(c & 15)]])
                }
                run = i + 1
            }
            b.append(contentsOf: UnsafeBufferPointer(rebasing: u[run..<u.count]))
        }
        b.append(UInt8(ascii: "\""))
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
