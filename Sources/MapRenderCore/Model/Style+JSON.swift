import Foundation

extension Style {
    /// Loads and validates a style file. Errors name the file, the key path and what was expected,
    /// with a suggestion for a misspelled key.
    public static func load(path: String) throws -> Style {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MapRenderError(.inputUnreadable, "cannot read style \(path): no such file or not readable")
        }
        return try parse(data: data, name: path)
    }

    public static func parse(data: Data, name: String) throws -> Style {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw MapRenderError(.style, "\(name): not valid JSON: \(Self.describeJSONError(error, in: data))")
        }
        var r = StyleReader(file: name)
        return try r.style(root)
    }

    /// Turns JSONSerialization's "around character N" into a line and column (styles, manifests).
    public static func describeJSONError(_ error: Error, in data: Data) -> String {
        let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "malformed JSON"
        let offset: Int
        if let r = detail.range(of: #"character (\d+)"#, options: .regularExpression),
           let o = Int(detail[r].dropFirst("character ".count)) {
            offset = o
        } else if let r = detail.range(of: #"^Number \S+ is not representable"#, options: .regularExpression),
                  let o = numberOffset(String(detail[r].dropFirst("Number ".count).prefix { $0 != " " }), in: data) {
            // Foundation names the number (`1e400`) without its place: found as a whole token.
            offset = o
        } else {
            return detail
        }
        var line = 1, col = 1
        for b in data.prefix(offset) {
            if b == UInt8(ascii: "\n") { line += 1; col = 1 } else if b & 0xC0 != 0x80 { col += 1 }
        }
        let what = detail.replacingOccurrences(of: #" around character \d+\.?"#, with: "", options: .regularExpression)
        return "line \(line), column \(col): \(what.lowercased())"
    }

    /// Where `literal` first stands as a JSON number in `data` (after `:`, `[`, `,` or white
    /// space, and before `,`, `]`, `}` or white space: not inside a string or a longer number),
    /// as a byte offset.
    static func numberOffset(_ literal: String, in data: Data) -> Int? {
        let needle = Array(literal.utf8), bytes = [UInt8](data)
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        let before = Set(" \t\r\n:[,".utf8), after = Set(" \t\r\n,]}".utf8)
        var i = 0
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0], Array(bytes[i..<(i + needle.count)]) == needle,
               i == 0 || before.contains(bytes[i - 1]),
               i + needle.count == bytes.count || after.contains(bytes[i + needle.count]) {
                return i
            }
            i += 1
        }
        return nil
    }
}

/// Walks the JSON of a style with the current key path, so every error says where it is.
struct StyleReader {
    let file: String

    func fail(_ path: String, _ message: String) -> MapRenderError {
        MapRenderError(.style, "\(file): \(path): \(message)")
    }

    func object(_ v: Any, _ path: String, keys: [String]) throws -> [String: Any] {
        guard let o = v as? [String: Any] else { throw fail(path.isEmpty ? "(top level)" : path, "expected an object") }
        for k in o.keys.sorted() where !keys.contains(k) {
            let at = path.isEmpty ? k : "\(path).\(k)"
            if let s = KeySuggestion.closest(to: k, among: keys) {
                throw fail(at, "unknown key; did you mean '\(s)'?")
            }
            throw fail(at, "unknown key; expected one of: \(keys.joined(separator: ", "))")
        }
        return o
    }

    func color(_ o: [String: Any], _ key: String, _ path: String, into c: inout RGBA) throws {
        guard let v = o[key] else { return }
        guard let s = v as? String, let col = RGBA.parse(s) else {
            throw fail("\(path).\(key)", "expected a colour like \"#rrggbb\", \"#rrggbbaa\" or \"rgba(r,g,b,a)\", got \(Self.show(v))")
        }
        c = col
    }

    func number(_ o: [String: Any], _ key: String, _ path: String, range: ClosedRange<Double>, into d: inout Double) throws {
        guard let v = o[key] else { return }
        guard let n = v as? NSNumber, !Self.isBool(v) else {
            throw fail("\(path).\(key)", "expected a number, got \(Self.show(v))")
        }
        let x = n.doubleValue
        guard x.isFinite, range.contains(x) else {
            throw fail("\(path).\(key)", "expected a number in \(Self.fmt(range.lowerBound))...\(Self.fmt(range.upperBound)), got \(Self.show(v))")
        }
        d = x
    }

    func string(_ o: [String: Any], _ key: String, _ path: String, into s: inout String) throws {
        guard let v = o[key] else { return }
        guard let str = v as? String, !str.isEmpty else {
            throw fail("\(path).\(key)", "expected a non-empty string, got \(Self.show(v))")
        }
        s = str
    }

    func enumValue<E: RawRepresentable & CaseIterable>(_ o: [String: Any], _ key: String, _ path: String, into e: inout E) throws where E.RawValue == String {
        guard let v = o[key] else { return }
        let options = E.allCases.map(\.rawValue)
        guard let s = v as? String, let val = E(rawValue: s) else {
            throw fail("\(path).\(key)", "expected one of \(options.map { "\"\($0)\"" }.joined(separator: ", ")), got \(Self.show(v))")
        }
        e = val
    }

    mutating func style(_ root: Any) throws -> Style {
        var st = Style()
        let o = try object(root, "", keys: ["version", "name", "background", "letterbox", "basemap", "marker", "label", "attribution", "cluster", "spread", "layers"])
        if let v = o["version"], !(v as? NSNumber == 1) || Self.isBool(v) {
            throw fail("version", "expected 1, got \(Self.show(v))")
        }
        if let v = o["name"], !(v is String) { throw fail("name", "expected a string, got \(Self.show(v))") }
        try color(o, "background", "", into: &st.background)
        try color(o, "letterbox", "", into: &st.letterbox)
        if let b = o["basemap"] {
            let p = "basemap"
            let m = try object(b, p, keys: ["fill", "stroke", "stroke-width", "line-color", "line-width"])
            if let v = m["fill"], v is [Any] {
                st.basemap.fillExpression = try StyleExpression.parse(v, file: file, path: "\(p).fill", expecting: .color)
            } else {
                try color(m, "fill", p, into: &st.basemap.fill)
            }
            try color(m, "stroke", p, into: &st.basemap.stroke)
            try number(m, "stroke-width", p, range: 0...20, into: &st.basemap.strokeWidth)
            try color(m, "line-color", p, into: &st.basemap.lineColor)
            try number(m, "line-width", p, range: 0...20, into: &st.basemap.lineWidth)
        }
        if let b = o["marker"] {
            let p = "marker"
            let m = try object(b, p, keys: ["shape", "size", "fill", "stroke", "stroke-width", "opacity", "icon", "icon-anchor", "icon-size"])
            try enumValue(m, "shape", p, into: &st.marker.shape)
            if let v = m["size"], v is [Any] {
                st.marker.sizeExpression = try StyleExpression.parse(v, file: file, path: "\(p).size", expecting: .number)
            } else {
                try number(m, "size", p, range: 1...256, into: &st.marker.size)
            }
            if let v = m["fill"], v is [Any] {
                st.marker.fillExpression = try StyleExpression.parse(v, file: file, path: "\(p).fill", expecting: .color)
            } else {
                try color(m, "fill", p, into: &st.marker.fill)
            }
            try color(m, "stroke", p, into: &st.marker.stroke)
            try number(m, "stroke-width", p, range: 0...20, into: &st.marker.strokeWidth)
            try number(m, "opacity", p, range: 0...1, into: &st.marker.opacity)
            try markerIcon(m, p, into: &st.marker)
        }
        if let b = o["label"] {
            let p = "label"
            let m = try object(b, p, keys: ["font", "size", "weight", "color", "halo", "halo-width", "offset", "text-padding",
                                            "callout-fill", "callout-stroke", "callout-max-width"])
            try string(m, "font", p, into: &st.label.font)
            try number(m, "size", p, range: 1...200, into: &st.label.size)
            try enumValue(m, "weight", p, into: &st.label.weight)
            try color(m, "color", p, into: &st.label.color)
            try color(m, "halo", p, into: &st.label.halo)
            try number(m, "halo-width", p, range: 0...20, into: &st.label.haloWidth)
            try number(m, "offset", p, range: 0...100, into: &st.label.offset)
            try number(m, "text-padding", p, range: 0...100, into: &st.label.textPadding)
            try color(m, "callout-fill", p, into: &st.label.calloutFill)
            try color(m, "callout-stroke", p, into: &st.label.calloutStroke)
            try number(m, "callout-max-width", p, range: 20...2000, into: &st.label.calloutMaxWidth)
        }
        if let b = o["attribution"] {
            let p = "attribution"
            let m = try object(b, p, keys: ["font", "size", "color", "background"])
            try string(m, "font", p, into: &st.attribution.font)
            try number(m, "size", p, range: 1...100, into: &st.attribution.size)
            try color(m, "color", p, into: &st.attribution.color)
            try color(m, "background", p, into: &st.attribution.background)
        }
        if let b = o["cluster"] {
            let p = "cluster"
            let m = try object(b, p, keys: ["steps", "stroke", "stroke-width", "opacity", "font", "text-size", "text-color", "text-field"])
            if let stepsValue = m["steps"] {
                guard let arr = stepsValue as? [Any], !arr.isEmpty else {
                    throw fail("\(p).steps", "expected a non-empty array of {\"min\", \"radius\", \"fill\"} objects")
                }
                var steps: [Style.BubbleStep] = []
                for (i, item) in arr.enumerated() {
                    let sp = "\(p).steps[\(i)]"
                    let so = try object(item, sp, keys: ["min", "radius", "fill"])
                    var min = 0.0, radius = 14.0
                    var fill = st.cluster.steps[0].fill
                    try number(so, "min", sp, range: 0...1e12, into: &min)
                    try number(so, "radius", sp, range: 1...200, into: &radius)
                    try color(so, "fill", sp, into: &fill)
                    if let last = steps.last, Int(min) <= last.min {
                        throw fail("\(sp).min", "steps must have ascending \"min\" values, got \(Int(min)) after \(last.min)")
                    }
                    steps.append(Style.BubbleStep(min: Int(min), radius: radius, fill: fill))
                }
                st.cluster.steps = steps
            }
            try color(m, "stroke", p, into: &st.cluster.stroke)
            try number(m, "stroke-width", p, range: 0...20, into: &st.cluster.strokeWidth)
            try number(m, "opacity", p, range: 0...1, into: &st.cluster.opacity)
            try string(m, "font", p, into: &st.cluster.font)
            try number(m, "text-size", p, range: 1...100, into: &st.cluster.textSize)
            try color(m, "text-color", p, into: &st.cluster.textColor)
            var field = ""
            try string(m, "text-field", p, into: &field)
            if !field.isEmpty { st.cluster.textField = field }
        }
        if let b = o["spread"] {
            let p = "spread"
            let m = try object(b, p, keys: ["leg-color", "leg-width", "dot-radius", "dot-color"])
            try color(m, "leg-color", p, into: &st.spread.legColor)
            try number(m, "leg-width", p, range: 0...20, into: &st.spread.legWidth)
            try number(m, "dot-radius", p, range: 0...50, into: &st.spread.dotRadius)
            try color(m, "dot-color", p, into: &st.spread.dotColor)
        }
        if let v = o["layers"] {
            st.layers = try layers(v)
            if let bg = st.layers?.last(where: { $0.type == .background }), let c = bg.fillColor.constantValue?.colorValue {
                st.background = c
            }
        }
        return st
    }

    /// The `layers` list (see `StyleLayer`), checked as MapLibre checks a style: each layer's
    /// type, source and keys, errors naming the layer by its index and id.
    func layers(_ v: Any) throws -> [StyleLayer] {
        guard let arr = v as? [Any] else { throw fail("layers", "expected an array of layer objects") }
        var out: [StyleLayer] = []
        var ids = Set<String>()
        for (i, item) in arr.enumerated() {
            var p = "layers[\(i)]"
            let o = try object(item, p, keys: ["id", "type", "source", "filter", "minzoom", "maxzoom", "paint", "layout", "metadata"])
            guard let id = o["id"] as? String, !id.isEmpty else { throw fail("\(p).id", "expected a non-empty string naming the layer") }
            p = "layers[\(i)] (\"\(id)\")"
            guard ids.insert(id).inserted else { throw fail("\(p).id", "another layer has this id") }
            var type = StyleLayer.LayerType.fill
            guard o["type"] != nil else { throw fail("\(p).type", "missing; expected one of \"background\", \"fill\", \"line\"") }
            try enumValue(o, "type", p, into: &type)
            var layer = StyleLayer(id: id, type: type)
            try enumValue(o, "source", p, into: &layer.source)
            if let f = o["filter"] {
                layer.filter = try StyleExpression.parse(f, file: file, path: "\(p).filter", expecting: .boolean)
            }
            try number(o, "minzoom", p, range: 0...24, into: &layer.minzoom)
            try number(o, "maxzoom", p, range: 0...24, into: &layer.maxzoom)
            let paintKeys: [String]
            let layoutKeys: [String]
            switch type {
            case .background:
                paintKeys = ["background-color"]; layoutKeys = ["visibility"]
            case .fill:
                paintKeys = ["fill-color", "fill-opacity", "fill-outline-color", "fill-outline-width"]; layoutKeys = ["visibility"]
            case .line:
                paintKeys = ["line-color", "line-width", "line-opacity", "line-dasharray"]
                layoutKeys = ["visibility", "line-cap", "line-join"]
            }
            if let l = o["layout"] {
                let lp = "\(p).layout"
                let m = try object(l, lp, keys: layoutKeys)
                if let vis = m["visibility"] {
                    guard let s = vis as? String, s == "visible" || s == "none" else {
                        throw fail("\(lp).visibility", "expected \"visible\" or \"none\", got \(Self.show(vis))")
                    }
                    layer.visible = s == "visible"
                }
                try enumValue(m, "line-cap", lp, into: &layer.lineCap)
                try enumValue(m, "line-join", lp, into: &layer.lineJoin)
            }
            if let pv = o["paint"] {
                let pp = "\(p).paint"
                let m = try object(pv, pp, keys: paintKeys)
                func expr(_ key: String, _ type: ExpressionType, range: ClosedRange<Double>? = nil) throws -> StyleExpression? {
                    guard let v = m[key] else { return nil }
                    let e = try StyleExpression.parse(v, file: file, path: "\(pp).\(key)", expecting: type)
                    if let c = e.constantValue {
                        switch type {
                        case .color where c.colorValue == nil:
                            throw fail("\(pp).\(key)", "expected a colour like \"#rrggbb\", \"#rrggbbaa\" or \"rgba(r,g,b,a)\", got \(Self.show(v))")
                        case .number:
                            guard let d = c.numberValue, range?.contains(d) ?? true else {
                                throw fail("\(pp).\(key)", "expected a number\(range.map { " in \(Self.fmt($0.lowerBound))...\(Self.fmt($0.upperBound))" } ?? ""), got \(Self.show(v))")
                            }
                        default: break
                        }
                    }
                    return e
                }
                if let e = try expr("background-color", .color) { layer.fillColor = e }
                if let e = try expr("fill-color", .color) { layer.fillColor = e }
                if let e = try expr("fill-opacity", .number, range: 0...1) { layer.fillOpacity = e }
                if let e = try expr("fill-outline-color", .color) { layer.fillOutlineColor = e }
                if let e = try expr("fill-outline-width", .number, range: 0...50) { layer.fillOutlineWidth = e }
                if let e = try expr("line-color", .color) { layer.lineColor = e }
                if let e = try expr("line-width", .number, range: 0...100) { layer.lineWidth = e }
                if let e = try expr("line-opacity", .number, range: 0...1) { layer.lineOpacity = e }
                if let d = m["line-dasharray"] {
                    // A plain array of numbers (MapLibre also accepts ["literal", [...]]).
                    var raw = d
                    if let a = d as? [Any], a.count == 2, a[0] as? String == "literal" { raw = a[1] }
                    guard let a = raw as? [Any], !a.isEmpty, a.count <= 16,
                          let nums = a.map({ ($0 as? NSNumber).flatMap { Self.isBool($0) ? nil : $0.doubleValue } }) as [Double?]?,
                          nums.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 && $0! <= 1000 }),
                          nums.contains(where: { $0! > 0 }) else {
                        throw fail("\(pp).line-dasharray", "expected an array of 1 to 16 non-negative numbers (dash and gap lengths in line widths), not all zero, got \(Self.show(d))")
                    }
                    layer.lineDasharray = nums.map { $0! }
                }
            }
            if type == .background && layer.fillColor.constantValue == nil {
                throw fail("\(p).paint.background-color", "expected a constant colour (the background is one colour)")
            }
            out.append(layer)
        }
        return out
    }

    /// JSONSerialization gives true/false as a boolean NSNumber, which `is Bool` cannot tell from 0/1.
    static func isBool(_ v: Any) -> Bool {
        v is NSNumber && String(describing: type(of: v)).contains("Boolean")
    }

    static func show(_ v: Any) -> String {
        if isBool(v) { return (v as? Bool) == true ? "true" : "false" }
        if let s = v as? String { return "\"\(s)\"" }
        if let n = v as? NSNumber { return PropertyValue.format(number: n.doubleValue) }
        if v is [Any] { return "an array" }
        if v is [String: Any] { return "an object" }
        if v is NSNull { return "null" }
        return "\(v)"
    }

    static func fmt(_ d: Double) -> String { PropertyValue.format(number: d) }

}
