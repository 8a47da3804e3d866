import Foundation

/// MapLibre's older syntaxes, which many published styles still use, rewritten into expressions
/// before parsing, so they run on the one evaluator:
///
/// - legacy filters: `["==", "class", "park"]`, `["in", "$type", "Polygon", "LineString"]`,
///   `["!in", ...]`, `["has", k]`, `["!has", k]`, `["all" | "any" | "none", ...]`, with `$type`
///   and `$id` for the geometry type and feature id;
/// - legacy functions: `{"stops": [[z, v], ...], "base": b}` on the zoom, `{"property": p,
///   "type": "categorical" | "interval" | "exponential" | "identity", "stops": ..., "default": d}`.
///
/// What is an expression and what is legacy is decided as the style spec's `isExpressionFilter`
/// does: `["==", "class", "park"]` (a string key in the second place) is legacy,
/// `["==", ["get", "class"], "park"]` an expression.
extension StyleExpression {
    /// A layer's `filter`, in either syntax.
    public static func parseFilter(_ json: Any, file: String, path: String) throws -> StyleExpression {
        let e = isExpressionFilter(json) ? json : try LegacyFilter(file: file, path: path).convert(json, path)
        return try parse(e, file: file, path: path, expecting: .boolean)
    }

    /// A paint or layout value: a constant, an expression, or a legacy function object.
    public static func parseProperty(_ json: Any, file: String, path: String, expecting type: ExpressionType) throws -> StyleExpression {
        if let o = json as? [String: Any] {
            return try parse(LegacyFunction(file: file, path: path).convert(o, type), file: file, path: path, expecting: type)
        }
        return try parse(json, file: file, path: path, expecting: type)
    }

    /// The style spec's test: true for expression syntax, false for legacy.
    static func isExpressionFilter(_ v: Any) -> Bool {
        if ExpressionParser.jsonBool(v) != nil { return true }
        guard let a = v as? [Any], let op = a.first as? String else { return false }
        switch op {
        case "has":
            guard a.count >= 2 else { return true }
            let k = a[1] as? String
            return k != "$id" && k != "$type"
        case "in":
            return a.count >= 3 && (!(a[1] is String) || a[2] is [Any])
        case "!in", "!has", "none":
            return false
        case "==", "!=", ">", ">=", "<", "<=":
            return a.count != 3 || a[1] is [Any] || a[2] is [Any]
        case "any", "all":
            return a.dropFirst().allSatisfy { isExpressionFilter($0) || ExpressionParser.jsonBool($0) != nil }
        default:
            return true
        }
    }
}

/// Legacy filter → expression JSON.
struct LegacyFilter {
    let file: String
    let path: String

    func fail(_ p: String, _ m: String) -> MapRenderError { MapRenderError(.style, "\(file): \(p): \(m)") }

    func key(_ v: Any, _ p: String) throws -> [Any] {
        guard let k = v as? String else { throw fail(p, "expected a property name, got \(StyleReader.show(v))") }
        switch k {
        case "$type": return ["geometry-type"]
        case "$id": return ["id"]
        default: return ["get", k]
        }
    }

    func scalar(_ v: Any, _ p: String) throws -> Any {
        if v is [Any] || v is [String: Any] { throw fail(p, "expected a string, number, boolean or null") }
        return v
    }

    func convert(_ v: Any, _ p: String) throws -> Any {
        if ExpressionParser.jsonBool(v) != nil { return v }
        guard let a = v as? [Any], let op = a.first as? String else {
            throw fail(p, "expected a filter array like [\"==\", \"class\", \"park\"], got \(StyleReader.show(v))")
        }
        func at(_ i: Int) -> String { "\(p)[\(i)]" }
        switch op {
        case "all", "any", "none":
            let parts = try a.dropFirst().enumerated().map { try convert($0.element, at($0.offset + 1)) }
            if op == "none" { return ["!", ["any"] + parts] as [Any] }
            return [op] + parts
        case "==", "!=":
            guard a.count == 3 else { throw fail(p, "\"\(op)\" takes a key and a value") }
            return [op, try key(a[1], at(1)), ["literal", try scalar(a[2], at(2))]] as [Any]
        case "<", "<=", ">", ">=":
            guard a.count == 3 else { throw fail(p, "\"\(op)\" takes a key and a value") }
            // Legacy ordering of different types is false, not an error.
            return ["coalesce", [op, try key(a[1], at(1)), ["literal", try scalar(a[2], at(2))]], false] as [Any]
        case "in", "!in":
            guard a.count >= 2 else { throw fail(p, "\"\(op)\" takes a key and values") }
            let values = try a.dropFirst(2).enumerated().map { try scalar($0.element, at($0.offset + 2)) }
            let e: [Any] = ["in", try key(a[1], at(1)), ["literal", values]]
            return op == "in" ? e : ["!", e] as [Any]
        case "has", "!has":
            guard a.count == 2 else { throw fail(p, "\"\(op)\" takes a key") }
            let k = try key(a[1], at(1))
            let e: [Any] = k.count == 1 ? ["!=", k, ["literal", NSNull()]] : ["has", k[1]]
            return op == "has" ? e : ["!", e] as [Any]
        default:
            throw fail(at(0), "unknown filter operator \"\(op)\"")
        }
    }
}

/// Legacy function object → expression JSON (`interpolate`, `step`, `match`, `get`).
struct LegacyFunction {
    let file: String
    let path: String

    func fail(_ m: String) -> MapRenderError { MapRenderError(.style, "\(file): \(path): \(m)") }

    func convert(_ o: [String: Any], _ type: ExpressionType) throws -> Any {
        let property = o["property"] as? String
        let interpolatable = type == .number || type == .color
        let kind = (o["type"] as? String) ?? (property != nil && !interpolatable ? "categorical"
                                                 : interpolatable ? "exponential" : "interval")
        let input: [Any] = property.map { ["get", $0] } ?? ["zoom"]
        let fallback: Any = o["default"] ?? NSNull()
        if kind == "identity" {
            guard property != nil else { throw fail("an identity function needs a \"property\"") }
            return ["coalesce", input, fallback] as [Any]
        }
        guard let stops = o["stops"] as? [Any], !stops.isEmpty else { throw fail("a function needs \"stops\"") }
        var pairs: [(Any, Any)] = []
        for s in stops {
            guard let pair = s as? [Any], pair.count == 2 else { throw fail("each stop is [input, output]") }
            if pair[0] is [String: Any] { throw fail("zoom-and-property functions are not supported") }
            pairs.append((pair[0], pair[1]))
        }
        func output(_ v: Any) -> Any { v is [Any] ? ["literal", v] as [Any] : v }
        switch kind {
        case "categorical":
            guard property != nil else {
                // Categorical on the zoom: a step at each stop.
                return step(input, pairs, output)
            }
            var e: [Any] = ["match", input]
            for (k, v) in pairs { e.append(k); e.append(output(v)) }
            e.append(fallback)
            return e
        case "interval":
            return step(input, pairs, output)
        case "exponential":
            let base = (o["base"] as? NSNumber)?.doubleValue ?? 1
            if pairs.count == 1 { return output(pairs[0].1) }
            let curve: [Any] = base == 1 ? ["linear"] : ["exponential", base]
            var e: [Any] = ["interpolate", curve, input]
            for (k, v) in pairs { e.append(k); e.append(output(v)) }
            return property == nil ? e : ["coalesce", e, fallback] as [Any]
        default:
            throw fail("unknown function type \"\(kind)\"")
        }
    }

    private func step(_ input: [Any], _ pairs: [(Any, Any)], _ output: (Any) -> Any) -> Any {
        if pairs.count == 1 { return output(pairs[0].1) }
        var e: [Any] = ["step", input, output(pairs[0].1)]
        for (k, v) in pairs.dropFirst() { e.append(k); e.append(output(v)) }
        return e
    }
}

extension StyleExpression {
    /// True when both are (`a` nil: `b` alone), for a layer's filter narrowed by the renderer.
    public static func all(_ a: StyleExpression?, _ b: StyleExpression) -> StyleExpression {
        guard let a else { return b }
        return StyleExpression(node: .all([a.node, b.node]))
    }

    /// `["==", ["geometry-type"], type]`.
    public static func geometryType(_ type: String) -> StyleExpression {
        StyleExpression(node: .compare(.eq, .get(Property(name: "$type")), .literal(.string(type))))
    }
}
