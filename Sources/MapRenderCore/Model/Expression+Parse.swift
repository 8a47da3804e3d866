import Foundation

extension StyleExpression {
    /// Parses the output of `JSONSerialization` (arrays, strings, numbers, booleans, null).
    ///
    /// Errors are `MapRenderError(.style, "<file>: <path>: <message>")`, where the path grows by
    /// array index: `s.json: marker.fill[2]: unknown operator "gett"; did you mean "get"?`.
    /// `expecting` checks literal outputs once (and turns colour strings into colours for `.color`).
    public static func parse(_ json: Any, file: String, path: String, expecting type: ExpressionType = .any) throws -> StyleExpression {
        let node = try ExpressionParser(file: file).parse(json, path, type)
        // A constant expression (folded when parsed) is checked like a literal: a filter
        // ["+", 1, 2] is refused as 42 is, instead of dropping every point.
        if case .literal(let v) = node, json is [Any] {
            switch (type, v) {
            case (.boolean, .bool), (.number, .number), (_, .null), (.any, _), (.string, _), (.color, _): break
            default:
                throw MapRenderError(.style, "\(file): \(path): expected a \(type.rawValue), got \(v) (the expression's constant value)")
            }
        }
        return StyleExpression(node: node)
    }

    /// Parses JSON text, as given on a command line: `["==", ["get", "country"], "FR"]`.
    public static func parse(jsonText: String, file: String, path: String, expecting type: ExpressionType = .any) throws -> StyleExpression {
        let data = Data(jsonText.utf8)
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw MapRenderError(.style, "\(file): \(path): not valid JSON: \(Style.describeJSONError(error, in: data))")
        }
        return try parse(json, file: file, path: path, expecting: type)
    }

    /// Every operator name the parser accepts (also the candidates for "did you mean").
    public static let operators: [String] = ExpressionParser.operators
}

/// Turns JSON into a `StyleExpression.Node`, folding constant subtrees, with the JSON path in every error.
struct ExpressionParser {
    typealias Node = StyleExpression.Node
    let file: String

    static let operators = [
        "literal", "get", "has", "zoom", "geometry-type", "id",
        "to-number", "to-string", "to-boolean", "to-color", "number", "string", "boolean",
        "match", "step", "interpolate", "case", "coalesce",
        "==", "!=", "<", "<=", ">", ">=", "!", "all", "any", "in",
        "+", "-", "*", "/", "%", "^", "min", "max",
        "abs", "floor", "ceil", "round", "sqrt", "ln", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan",
        "e", "pi", "ln2",
        "concat", "upcase", "downcase", "length", "typeof", "rgb", "rgba",
    ]

    func fail(_ path: String, _ message: String) -> MapRenderError {
        MapRenderError(.style, "\(file): \(path): \(message)")
    }

    // MARK: - Values

    func parse(_ v: Any, _ path: String, _ expect: ExpressionType) throws -> Node {
        if let a = v as? [Any] { return try fold(call(a, path, expect)) }
        if v is [String: Any] {
            throw fail(path, "objects are not supported in expressions")
        }
        return .literal(try literal(v, path, expect))
    }

    /// A scalar JSON value, checked against what the caller expects here.
    func literal(_ v: Any, _ path: String, _ expect: ExpressionType) throws -> ExpressionValue {
        let value: ExpressionValue
        if v is NSNull {
            value = .null
        } else if let b = Self.jsonBool(v) {
            value = .bool(b)
        } else if let s = v as? String {
            value = .string(s)
        } else if let n = v as? NSNumber, n.doubleValue.isFinite {
            value = .number(n.doubleValue)
        } else if v is [Any] {
            throw fail(path, "array literals are only supported as the list of \"in\"")
        } else {
            throw fail(path, "expected a JSON value, got \(StyleReader.show(v))")
        }
        switch (expect, value) {
        case (_, .null), (.any, _), (.string, _), (.number, .number), (.boolean, .bool), (.color, .color):
            return value
        case (.color, .string(let s)):
            if let c = RGBA.parse(s) { return .color(c) }
            fallthrough
        case (.color, _):
            throw fail(path, ##"expected a colour like "#rrggbb", "#rrggbbaa" or "rgba(r,g,b,a)", got "## + StyleReader.show(v))
        case (.number, _), (.boolean, _):
            throw fail(path, "expected a \(expect.rawValue), got \(StyleReader.show(v))")
        }
    }

    /// JSONSerialization gives booleans as an NSNumber whose type name contains "Boolean";
    /// Swift code may pass a real `Bool`. Both are booleans; 0 and 1 are not.
    static func jsonBool(_ v: Any) -> Bool? {
        guard let b = v as? Bool else { return nil }
        if type(of: v) == Bool.self || String(describing: type(of: v)).contains("Boolean") { return b }
        return nil
    }

    /// Replaces a subtree that reads neither properties nor the zoom by its value.
    func fold(_ n: Node) -> Node {
        switch n {
        case .literal, .get, .has, .zoom: return n
        default:
            guard n.children.allSatisfy(\.isLiteral) else { return n }
            return .literal(n.evaluate(NoFeature()))
        }
    }

    // MARK: - Operators

    func call(_ a: [Any], _ path: String, _ expect: ExpressionType) throws -> Node {
        guard let first = a.first else {
            throw fail(path, #"empty array; an expression starts with an operator, a literal array is written ["literal", [...]]"#)
        }
        guard let op = first as? String else {
            throw fail("\(path)[0]", #"expected an operator name, got \#(StyleReader.show(first)); a literal array is written ["literal", [...]]"#)
        }
        let n = a.count - 1  // arguments after the operator
        func at(_ i: Int) -> String { "\(path)[\(i)]" }
        func arg(_ i: Int, _ t: ExpressionType = .any) throws -> Node { try parse(a[i], at(i), t) }
        func args(from i: Int = 1, _ t: ExpressionType = .any) throws -> [Node] {
            try (i..<a.count).map { try arg($0, t) }
        }
        func arity(_ range: ClosedRange<Int>) throws {
            guard !range.contains(n) else { return }
            let want: String
            if range.upperBound == Int.max {
                want = "at least \(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
            } else if range.count == 1 {
                want = "\(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
            } else if range.count == 2 {
                want = "\(range.lowerBound) or \(range.upperBound) arguments"
            } else {
                want = "\(range.lowerBound) to \(range.upperBound) arguments"
            }
            throw fail(path, "\"\(op)\" expects \(want), got \(n)")
        }
        let many = Int.max

        switch op {
        case "literal":
            try arity(1...1)
            if a[1] is [Any] || a[1] is [String: Any] {
                throw fail(at(1), "array and object literals are only supported as the list of \"in\"")
            }
            return .literal(try literal(a[1], at(1), expect))

        case "get", "has":
            try arity(1...1)
            guard let name = a[1] as? String else {
                throw fail(at(1), "expected a property name string, got \(StyleReader.show(a[1]))")
            }
            let p = StyleExpression.Property(name: name)
            return op == "get" ? .get(p) : .has(p)

        case "zoom":
            try arity(0...0)
            return .zoom
        case "geometry-type", "id":
            // A vector tile feature's type and id are the properties `$type` and `$id` of its
            // table (`VectorLayerData`), as the legacy filters name them.
            try arity(0...0)
            return .get(StyleExpression.Property(name: op == "id" ? "$id" : "$type"))
        case "e", "pi", "ln2":
            try arity(0...0)
            return .literal(.number(op == "e" ? M_E : op == "pi" ? Double.pi : M_LN2))

        case "to-number", "to-color":
            try arity(1...many)
            return .convert(StyleExpression.Conversion(rawValue: op)!, try args())
        case "to-string", "to-boolean":
            try arity(1...1)
            return .convert(StyleExpression.Conversion(rawValue: op)!, try args())
        case "number", "string", "boolean":
            try arity(1...many)
            return .assert(ExpressionType(rawValue: op)!, try args())

        case "match": return try match(a, path, expect)
        case "step": return try step(a, path, expect)
        case "interpolate": return try interpolate(a, path, expect)

        case "case":
            guard n >= 3, n % 2 == 1 else { throw fail(path, "\"case\" needs condition/output pairs and a fallback") }
            let pairs = stride(from: 1, to: a.count - 1, by: 2)
            return .cases(try pairs.map { try arg($0, .boolean) }, try pairs.map { try arg($0 + 1, expect) },
                          try arg(a.count - 1, expect))
        case "coalesce":
            try arity(1...many)
            return .coalesce(try args(expect))

        case "==", "!=", "<", "<=", ">", ">=":
            try arity(2...2)
            return .compare(StyleExpression.Comparison(rawValue: op)!, try arg(1), try arg(2))
        case "!":
            try arity(1...1)
            return .not(try arg(1, .boolean))
        case "all", "any":
            let list = try args(.boolean)
            return op == "all" ? .all(list) : .any(list)

        case "in":
            try arity(2...2)
            let needle = try arg(1)
            if let list = try literalList(a[2], at(2)) { return .inList(needle, list) }
            if let bare = a[2] as? [Any], !((bare.first as? String).map(Self.operators.contains) ?? false) {
                throw fail(at(2), #"a list of values is written ["literal", [...]]"#)
            }
            return .inString(needle, try arg(2, .string))

        case "-":
            try arity(1...2)
            return n == 1 ? .math1(.negate, try arg(1, .number)) : .math2(.subtract, try arg(1, .number), try arg(2, .number))
        case "/", "%", "^":
            try arity(2...2)
            return .math2(StyleExpression.Math2(rawValue: op)!, try arg(1, .number), try arg(2, .number))
        case "+", "*":
            try arity(2...many)
            return .mathN(StyleExpression.MathN(rawValue: op)!, try args(.number))
        case "min", "max":
            try arity(1...many)
            return .mathN(StyleExpression.MathN(rawValue: op)!, try args(.number))
        case "abs", "floor", "ceil", "round", "sqrt", "ln", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan":
            try arity(1...1)
            return .math1(StyleExpression.Math1(rawValue: op)!, try arg(1, .number))

        case "concat":
            try arity(1...many)
            return .concat(try args())
        case "upcase", "downcase", "length", "typeof":
            try arity(1...1)
            return .text(StyleExpression.Text(rawValue: op)!, try arg(1))
        case "rgb":
            try arity(3...3)
            return .rgba(try args(.number))
        case "rgba":
            try arity(4...4)
            return .rgba(try args(.number))

        default:
            if let s = KeySuggestion.closest(to: op, among: Self.operators) {
                throw fail(at(0), "unknown operator \"\(op)\"; did you mean \"\(s)\"?")
            }
            throw fail(at(0), "unknown operator \"\(op)\"")
        }
    }

    /// The haystack of `in` when it is `["literal", [...]]`; nil when it is an expression.
    func literalList(_ v: Any, _ path: String) throws -> Set<ExpressionValue>? {
        guard let a = v as? [Any], a.first as? String == "literal" else { return nil }
        guard a.count == 2 else { throw fail(path, "\"literal\" expects 1 argument, got \(a.count - 1)") }
        guard let items = a[1] as? [Any] else { return nil }  // ["literal", "text"]: a string haystack
        var set = Set<ExpressionValue>()
        for (i, item) in items.enumerated() {
            let p = "\(path)[1][\(i)]"
            if item is [Any] || item is [String: Any] { throw fail(p, "expected a string, number, boolean or null") }
            set.insert(try literal(item, p, .any))
        }
        return set
    }

    /// `["match", input, label | [labels], output, ..., fallback]`
    func match(_ a: [Any], _ path: String, _ expect: ExpressionType) throws -> Node {
        guard a.count >= 5, a.count % 2 == 1 else {
            throw fail(path, "\"match\" needs an input, label/output pairs and a fallback")
        }
        let input = try parse(a[1], "\(path)[1]", .any)
        var table: [ExpressionValue: Int] = [:]
        var outputs: [Node] = []
        var labelKind: String?
        for i in stride(from: 2, to: a.count - 1, by: 2) {
            let p = "\(path)[\(i)]"
            let labels: [(Any, String)]
            if let list = a[i] as? [Any] {
                guard !list.isEmpty else { throw fail(p, "expected at least one label") }
                labels = list.enumerated().map { ($1, "\(p)[\($0)]") }
            } else {
                labels = [(a[i], p)]
            }
            for (raw, lp) in labels {
                let value: ExpressionValue
                if let s = raw as? String {
                    value = .string(s)
                } else if let num = raw as? NSNumber, Self.jsonBool(raw) == nil, num.doubleValue.isFinite {
                    value = .number(num.doubleValue)
                } else {
                    throw fail(lp, "a \"match\" label must be a string or a number, got \(StyleReader.show(raw))")
                }
                let kind = value.numberValue == nil ? "strings" : "numbers"
                if let k = labelKind, k != kind {
                    throw fail(lp, "\"match\" labels must be all strings or all numbers, got \(StyleReader.show(raw)) after \(k)")
                }
                labelKind = kind
                guard table[value] == nil else { throw fail(lp, "duplicate \"match\" label \(StyleReader.show(raw))") }
                table[value] = outputs.count
            }
            outputs.append(try parse(a[i + 1], "\(path)[\(i + 1)]", expect))
        }
        let fallback = try parse(a[a.count - 1], "\(path)[\(a.count - 1)]", expect)
        return .match(input, table, outputs, fallback)
    }

    /// `["step", input, output0, stop1, output1, ...]`
    func step(_ a: [Any], _ path: String, _ expect: ExpressionType) throws -> Node {
        guard a.count >= 5 else {
            throw fail(path, "\"step\" needs an input, a first output and at least one stop/output pair")
        }
        guard a.count % 2 == 1 else { throw fail(path, "\"step\" needs an even number of stop arguments") }
        let input = try parse(a[1], "\(path)[1]", .number)
        var outputs = [try parse(a[2], "\(path)[2]", expect)]
        var stops: [Double] = []
        for i in stride(from: 3, to: a.count, by: 2) {
            stops.append(try stop(a, i, path, "step", after: stops.last))
            outputs.append(try parse(a[i + 1], "\(path)[\(i + 1)]", expect))
        }
        return .step(input, stops, outputs)
    }

    /// `["interpolate", ["linear"] | ["exponential", base], input, stop1, output1, ...]`
    /// Outputs are numbers or colours: which one comes from `expect`, or else from whether any
    /// literal output is a string.
    func interpolate(_ a: [Any], _ path: String, _ expect: ExpressionType) throws -> Node {
        guard a.count >= 5 else {
            throw fail(path, "\"interpolate\" needs an interpolation type, an input and at least one stop/output pair")
        }
        guard a.count % 2 == 1 else { throw fail(path, "\"interpolate\" needs an even number of stop arguments") }
        let curve = try self.curve(a[1], "\(path)[1]")
        let input = try parse(a[2], "\(path)[2]", .number)
        let outType: ExpressionType
        switch expect {
        case .number, .color: outType = expect
        default:
            let outs = stride(from: 4, to: a.count, by: 2).map { a[$0] }
            outType = outs.contains(where: Self.isStringLiteral) ? .color : .number
        }
        var stops: [Double] = [], outputs: [Node] = []
        for i in stride(from: 3, to: a.count, by: 2) {
            stops.append(try stop(a, i, path, "interpolate", after: stops.last))
            outputs.append(try parse(a[i + 1], "\(path)[\(i + 1)]", outType))
        }
        return .interpolate(curve, input, stops, outputs)
    }

    /// `"red"` or `["literal", "red"]`.
    static func isStringLiteral(_ v: Any) -> Bool {
        if v is String { return true }
        guard let a = v as? [Any], a.count == 2, a[0] as? String == "literal" else { return false }
        return a[1] is String
    }

    func curve(_ v: Any, _ path: String) throws -> StyleExpression.Curve {
        let usage = #"expected ["linear"] or ["exponential", base]"#
        guard let a = v as? [Any], let kind = a.first as? String else {
            throw fail(path, "\(usage), got \(StyleReader.show(v))")
        }
        switch kind {
        case "linear":
            guard a.count == 1 else { throw fail(path, "\"linear\" takes no arguments") }
            return .linear
        case "exponential":
            guard a.count == 2, let base = a[1] as? NSNumber, Self.jsonBool(a[1]) == nil,
                  base.doubleValue.isFinite, base.doubleValue > 0 else {
                throw fail(path, "\"exponential\" needs one base, a number above 0")
            }
            return .exponential(base.doubleValue)
        default:
            throw fail("\(path)[0]", "unsupported interpolation \"\(kind)\"; \(usage)")
        }
    }

    /// A stop input of `step` / `interpolate`: a literal number above the previous one.
    func stop(_ a: [Any], _ i: Int, _ path: String, _ op: String, after previous: Double?) throws -> Double {
        let p = "\(path)[\(i)]"
        guard let num = a[i] as? NSNumber, Self.jsonBool(a[i]) == nil, num.doubleValue.isFinite else {
            throw fail(p, "a \"\(op)\" stop must be a literal number, got \(StyleReader.show(a[i]))")
        }
        let x = num.doubleValue
        if let prev = previous, !(x > prev) {
            throw fail(p, "\"\(op)\" stops must be in strictly ascending order, but \(StyleReader.fmt(x)) follows \(StyleReader.fmt(prev))")
        }
        return x
    }
}
