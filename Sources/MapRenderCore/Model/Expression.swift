/// A data-driven style value: a pre-compiled subset of MapLibre style-spec expressions.
///
/// Parsed once from JSON (`StyleExpression.parse`), bound once to a property table (`bind(to:)`),
/// then evaluated per point with no name lookups:
///
///     let size = try StyleExpression.parse(json, file: "s.json", path: "marker.size", expecting: .number)
///     let bound = size.bind(to: points.properties)
///     for row in 0..<points.count { let s = bound.evaluate(row: row, zoom: z).numberValue ?? 12 }
///
/// Supported operators: `literal get has zoom`, conversions `to-number to-string to-boolean to-color`,
/// assertions `number string boolean`, `match step interpolate case coalesce`,
/// `== != < <= > >= ! all any in`, arithmetic `+ - * / % ^ min max abs floor ceil round sqrt`
/// and `ln log10 log2 sin cos tan asin acos atan e pi ln2`, text `concat upcase downcase length`,
/// and `rgb rgba typeof`.
///
/// Evaluation never throws: where MapLibre raises an evaluation error (a type mismatch, a missing
/// property where a number is needed) the result is `.null`, and callers use their default.
public struct StyleExpression: Hashable, Sendable {
    let node: Node

    /// Names of the feature properties the expression reads (`get`, `has`), sorted.
    /// A reader can keep only these columns.
    public let propertyNames: [String]
    /// True when the expression does not read `["zoom"]`.
    public let isZoomConstant: Bool

    init(node: Node) {
        self.node = node
        var names = Set<String>()
        var zoom = false
        node.walk { n in
            switch n {
            case .get(let p), .has(let p): names.insert(p.name)
            case .zoom: zoom = true
            default: break
            }
        }
        propertyNames = names.sorted()
        isZoomConstant = !zoom
    }

    /// An expression that always gives `value`.
    public init(constant value: ExpressionValue) { self.init(node: .literal(value)) }

    /// `["match", ["get", property], key, key, ..., fallback]`: a feature whose `property` is
    /// one of `keys` gets that key, any other `fallback` (nil: the empty string). A served map's
    /// `url-` markers name their icons this way in front of the style's own `marker.icon`.
    public static func matchingProperty(_ property: String, keys: [String], fallback: StyleExpression?) -> StyleExpression {
        var labels: [ExpressionValue: Int] = [:]
        var outputs: [Node] = []
        for k in keys where labels[.string(k)] == nil {
            labels[.string(k)] = outputs.count
            outputs.append(.literal(.string(k)))
        }
        return StyleExpression(node: .match(.get(Property(name: property)), labels, outputs, fallback?.node ?? .literal(.string(""))))
    }

    /// True when the expression reads no feature property: evaluate it once per render, not per point.
    public var isFeatureConstant: Bool { propertyNames.isEmpty }

    /// True when the expression depends neither on feature data nor on the zoom.
    public var isConstant: Bool { isFeatureConstant && isZoomConstant }

    /// The value of a constant expression (constants are folded when parsed), else nil.
    public var constantValue: ExpressionValue? {
        if case .literal(let v) = node { return v }
        return nil
    }

    /// Evaluates by property name, for one feature.
    public func evaluate<C: ExpressionContext>(_ context: C) -> ExpressionValue {
        node.evaluate(NamedSource(context: context))
    }

    /// Resolves every `["get", name]` to a column of `table`, for fast per-row evaluation.
    /// The bound expression keeps (a copy-on-write reference to) the table's columns:
    /// bind again after changing the table.
    public func bind(to table: PropertyTable) -> BoundExpression {
        BoundExpression(expression: self, node: node.bound(to: table), columns: table.columns)
    }
}

/// An expression bound to the columns of one `PropertyTable`.
public struct BoundExpression: Sendable {
    public let expression: StyleExpression
    let node: StyleExpression.Node
    let columns: [[PropertyValue]]

    /// Evaluates for one row of the table. `row: nil` means a feature with no row (a cluster);
    /// `extra` holds properties that are not in the table (`point_count` of a cluster) and
    /// takes precedence over the table's columns.
    ///
    /// - Complexity: O(size of the expression); `match` and `in` lists are hashed, stops are binary-searched.
    public func evaluate(row: Int?, zoom: Double = 0, extra: [String: PropertyValue] = [:]) -> ExpressionValue {
        node.evaluate(RowSource(columns: columns, row: row ?? -1, zoom: zoom, extra: extra))
    }
}

/// What an expression result may be expected to be, given by the caller when parsing so literal
/// outputs are checked (and colour strings parsed) once: `expecting: .color` for a fill.
public enum ExpressionType: String, Sendable, CaseIterable {
    case any, number, string, boolean, color
}

/// Property lookup by name for one feature, plus the render's zoom.
public protocol ExpressionContext {
    var zoom: Double { get }
    /// The property's value, `.missing` when the feature has no such property.
    func property(_ name: String) -> PropertyValue
}

/// A feature given as a dictionary of properties.
public struct FeatureContext: ExpressionContext, Sendable {
    public var zoom: Double
    public var properties: [String: PropertyValue]

    public init(zoom: Double = 0, properties: [String: PropertyValue] = [:]) {
        self.zoom = zoom
        self.properties = properties
    }

    public func property(_ name: String) -> PropertyValue { properties[name] ?? .missing }
}

/// The result of evaluating an expression.
public enum ExpressionValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case color(RGBA)

    /// A property value as an expression value: missing and null become `.null`; arrays and
    /// objects (`.json`) also become `.null`, as expressions here have no array type.
    public init(_ p: PropertyValue) {
        switch p {
        case .missing, .null, .json: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let d): self = .number(d)
        case .string(let s): self = .string(s)
        }
    }

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The number, only for `.number` (numeric style values do not coerce, as in MapLibre).
    public var numberValue: Double? { if case .number(let d) = self { return d } else { return nil } }

    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }

    /// Text for labels, coerced like `to-string`: numbers without a trailing `.0`, colours as
    /// `rgba(r,g,b,a)`; nil for null.
    public var stringValue: String? {
        switch self {
        case .null: return nil
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return PropertyValue.format(number: d)
        case .string(let s): return s
        case .color(let c): return Self.cssText(c)
        }
    }

    /// A colour, or a string that parses as one (`RGBA.parse`); nil otherwise.
    public var colorValue: RGBA? {
        switch self {
        case .color(let c): return c
        case .string(let s): return RGBA.parse(s)
        default: return nil
        }
    }

    /// Whether a filter keeps the feature: only `true` does (null, errors and non-booleans do not).
    public var truthy: Bool { if case .bool(true) = self { return true } else { return false } }

    /// JSON-like text, for messages and tests.
    public var description: String {
        switch self {
        case .null: return "null"
        case .string(let s): return "\"\(s)\""
        default: return stringValue ?? "null"
        }
    }

    /// `rgba(255,0,0,1)`, as MapLibre writes colours as text.
    static func cssText(_ c: RGBA) -> String {
        func byte(_ v: Double) -> String { String(Int((min(max(v, 0), 1) * 255).rounded())) }
        return "rgba(\(byte(c.r)),\(byte(c.g)),\(byte(c.b)),\(PropertyValue.format(number: c.a)))"
    }
}

extension StyleExpression {
    /// A feature property reference; `column` is -1 until bound to a table (or when the table lacks it).
    struct Property: Hashable, Sendable {
        var name: String
        var column: Int = -1
    }

    enum Curve: Hashable, Sendable {
        case linear
        case exponential(Double)
    }

    enum Conversion: String, Sendable {
        case toNumber = "to-number", toString = "to-string", toBoolean = "to-boolean", toColor = "to-color"
    }

    enum Comparison: String, Sendable {
        case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
    }

    /// number -> number
    enum Math1: String, Sendable {
        case negate = "-", abs, floor, ceil, round, sqrt, ln, log10, log2, sin, cos, tan, asin, acos, atan
    }

    /// (number, number) -> number
    enum Math2: String, Sendable {
        case subtract = "-", divide = "/", remainder = "%", power = "^"
    }

    /// (number, ...) -> number
    enum MathN: String, Sendable {
        case add = "+", multiply = "*", min, max
    }

    enum Text: String, Sendable {
        case upcase, downcase, length, typeof
    }

    /// The compiled tree. Literal subtrees are folded when parsed.
    indirect enum Node: Hashable, Sendable {
        case literal(ExpressionValue)
        case get(Property)
        case has(Property)
        case zoom
        case convert(Conversion, [Node])
        /// `number` / `string` / `boolean`: the first argument of that type.
        case assert(ExpressionType, [Node])
        /// input, label -> index into outputs, outputs, fallback
        case match(Node, [ExpressionValue: Int], [Node], Node)
        /// input, stops, outputs (one more than stops: outputs[0] is below the first stop)
        case step(Node, [Double], [Node])
        /// curve, input, stops, outputs (as many as stops)
        case interpolate(Curve, Node, [Double], [Node])
        /// conditions, outputs, fallback
        case cases([Node], [Node], Node)
        case coalesce([Node])
        case compare(Comparison, Node, Node)
        case not(Node)
        case all([Node])
        case any([Node])
        /// needle in a literal list
        case inList(Node, Set<ExpressionValue>)
        /// needle in a computed string
        case inString(Node, Node)
        case math1(Math1, Node)
        case math2(Math2, Node, Node)
        case mathN(MathN, [Node])
        case concat([Node])
        case text(Text, Node)
        case rgba([Node])

        var children: [Node] {
            switch self {
            case .literal, .get, .has, .zoom: return []
            case .convert(_, let a), .assert(_, let a), .coalesce(let a), .all(let a), .any(let a),
                 .mathN(_, let a), .concat(let a), .rgba(let a):
                return a
            case .match(let i, _, let o, let f): return [i] + o + [f]
            case .step(let i, _, let o), .interpolate(_, let i, _, let o): return [i] + o
            case .cases(let c, let o, let f): return c + o + [f]
            case .compare(_, let a, let b), .inString(let a, let b), .math2(_, let a, let b): return [a, b]
            case .not(let a), .inList(let a, _), .math1(_, let a), .text(_, let a): return [a]
            }
        }

        func walk(_ visit: (Node) -> Void) {
            visit(self)
            for c in children { c.walk(visit) }
        }

        var isLiteral: Bool { if case .literal = self { return true } else { return false } }

        /// The same tree with every property reference resolved to a column of `table`.
        func bound(to table: PropertyTable) -> Node {
            func b(_ n: Node) -> Node { n.bound(to: table) }
            func p(_ x: Property) -> Property { Property(name: x.name, column: table.columnIndex(x.name) ?? -1) }
            switch self {
            case .literal, .zoom: return self
            case .get(let x): return .get(p(x))
            case .has(let x): return .has(p(x))
            case .convert(let k, let a): return .convert(k, a.map(b))
            case .assert(let k, let a): return .assert(k, a.map(b))
            case .match(let i, let t, let o, let f): return .match(b(i), t, o.map(b), b(f))
            case .step(let i, let s, let o): return .step(b(i), s, o.map(b))
            case .interpolate(let c, let i, let s, let o): return .interpolate(c, b(i), s, o.map(b))
            case .cases(let c, let o, let f): return .cases(c.map(b), o.map(b), b(f))
            case .coalesce(let a): return .coalesce(a.map(b))
            case .compare(let k, let x, let y): return .compare(k, b(x), b(y))
            case .not(let x): return .not(b(x))
            case .all(let a): return .all(a.map(b))
            case .any(let a): return .any(a.map(b))
            case .inList(let x, let s): return .inList(b(x), s)
            case .inString(let x, let y): return .inString(b(x), b(y))
            case .math1(let k, let x): return .math1(k, b(x))
            case .math2(let k, let x, let y): return .math2(k, b(x), b(y))
            case .mathN(let k, let a): return .mathN(k, a.map(b))
            case .concat(let a): return .concat(a.map(b))
            case .text(let k, let x): return .text(k, b(x))
            case .rgba(let a): return .rgba(a.map(b))
            }
        }
    }
}
