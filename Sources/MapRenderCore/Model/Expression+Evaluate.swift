import Foundation

/// Where evaluation reads feature properties and the zoom.
protocol ExpressionPropertySource {
    var zoom: Double { get }
    func value(_ p: StyleExpression.Property) -> PropertyValue
}

/// Lookup by name through a public `ExpressionContext`.
struct NamedSource<C: ExpressionContext>: ExpressionPropertySource {
    let context: C
    var zoom: Double { context.zoom }
    func value(_ p: StyleExpression.Property) -> PropertyValue { context.property(p.name) }
}

/// Lookup by pre-resolved column, for one row (-1: no row), with extra properties first.
struct RowSource: ExpressionPropertySource {
    let columns: [[PropertyValue]]
    let row: Int
    let zoom: Double
    let extra: [String: PropertyValue]

    @inline(__always)
    func value(_ p: StyleExpression.Property) -> PropertyValue {
        if !extra.isEmpty, let v = extra[p.name] { return v }
        guard p.column >= 0, row >= 0 else { return .missing }
        return columns[p.column][row]
    }
}

/// Evaluation with no feature (constant folding).
struct NoFeature: ExpressionPropertySource {
    var zoom: Double { 0 }
    func value(_ p: StyleExpression.Property) -> PropertyValue { .missing }
}

extension StyleExpression.Node {
    func evaluate<S: ExpressionPropertySource>(_ s: S) -> ExpressionValue {
        switch self {
        case .literal(let v):
            return v
        case .get(let p):
            return ExpressionValue(s.value(p))
        case .has(let p):
            if case .missing = s.value(p) { return .bool(false) }
            return .bool(true)
        case .zoom:
            return .number(s.zoom)

        case .convert(let kind, let args):
            return Self.convert(kind, args, s)
        case .assert(let type, let args):
            for a in args {
                let v = a.evaluate(s)
                switch (type, v) {
                case (.number, .number), (.string, .string), (.boolean, .bool): return v
                default: continue
                }
            }
            return .null

        case .match(let input, let labels, let outputs, let fallback):
            if let i = labels[input.evaluate(s)] { return outputs[i].evaluate(s) }
            return fallback.evaluate(s)

        case .step(let input, let stops, let outputs):
            guard case .number(let x) = input.evaluate(s) else { return .null }
            // outputs[0] below the first stop; outputs[i + 1] from stops[i] on.
            return outputs[Self.countOfStops(stops, atOrBelow: x)].evaluate(s)

        case .interpolate(let curve, let input, let stops, let outputs):
            guard case .number(let x) = input.evaluate(s) else { return .null }
            if x.isNaN { return .null }
            if x <= stops[0] { return outputs[0].evaluate(s) }
            if x >= stops[stops.count - 1] { return outputs[stops.count - 1].evaluate(s) }
            let i = Self.countOfStops(stops, atOrBelow: x) - 1
            let t = Self.factor(curve, x, stops[i], stops[i + 1])
            return Self.blend(outputs[i].evaluate(s), outputs[i + 1].evaluate(s), t)

        case .cases(let conditions, let outputs, let fallback):
            for (i, c) in conditions.enumerated() {
                switch c.evaluate(s) {
                case .bool(true): return outputs[i].evaluate(s)
                case .bool(false): continue
                default: return .null  // MapLibre: a condition must be a boolean
                }
            }
            return fallback.evaluate(s)

        case .coalesce(let args):
            for a in args {
                let v = a.evaluate(s)
                if !v.isNull { return v }
            }
            return .null

        case .compare(let op, let a, let b):
            return Self.compare(op, a.evaluate(s), b.evaluate(s))
        case .not(let a):
            guard case .bool(let b) = a.evaluate(s) else { return .null }
            return .bool(!b)
        case .all(let args):
            for a in args {
                switch a.evaluate(s) {
                case .bool(true): continue
                case .bool(false): return .bool(false)
                default: return .null
                }
            }
            return .bool(true)
        case .any(let args):
            for a in args {
                switch a.evaluate(s) {
                case .bool(true): return .bool(true)
                case .bool(false): continue
                default: return .null
                }
            }
            return .bool(false)

        case .inList(let needle, let list):
            let v = needle.evaluate(s)
            if case .color = v { return .null }
            return .bool(list.contains(v))
        case .inString(let needle, let haystack):
            let n = needle.evaluate(s)
            switch haystack.evaluate(s) {
            case .null: return .bool(false)
            case .string(let h):
                switch n {
                case .string(let x): return .bool(x.isEmpty || h.contains(x))
                case .number, .bool, .null: return .bool(h.contains(n.stringValue ?? "null"))
                case .color: return .null
                }
            default: return .null
            }

        case .math1(let op, let a):
            guard case .number(let x) = a.evaluate(s) else { return .null }
            return .number(Self.math1(op, x))
        case .math2(let op, let a, let b):
            guard case .number(let x) = a.evaluate(s), case .number(let y) = b.evaluate(s) else { return .null }
            switch op {
            case .subtract: return .number(x - y)
            case .divide: return .number(x / y)
            case .remainder: return .number(x.truncatingRemainder(dividingBy: y))
            case .power: return .number(Foundation.pow(x, y))
            }
        case .mathN(let op, let args):
            var acc = 0.0
            for (i, a) in args.enumerated() {
                guard case .number(let x) = a.evaluate(s) else { return .null }
                if i == 0 { acc = x; continue }
                switch op {
                case .add: acc += x
                case .multiply: acc *= x
                case .min: acc = Swift.min(acc, x)
                case .max: acc = Swift.max(acc, x)
                }
            }
            return .number(acc)

        case .concat(let args):
            var out = ""
            for a in args { out += a.evaluate(s).stringValue ?? "" }
            return .string(out)
        case .text(let op, let a):
            let v = a.evaluate(s)
            switch (op, v) {
            case (.upcase, .string(let x)): return .string(x.uppercased())
            case (.downcase, .string(let x)): return .string(x.lowercased())
            case (.length, .string(let x)): return .number(Double(x.utf16.count))  // UTF-16 units, as JavaScript
            case (.typeof, _): return .string(Self.typeName(v))
            default: return .null
            }
        case .rgba(let args):
            var c = [Double]()
            for a in args {
                guard case .number(let x) = a.evaluate(s) else { return .null }
                c.append(x)
            }
            guard c[0...2].allSatisfy({ (0...255).contains($0) }) else { return .null }
            let alpha = c.count == 4 ? c[3] : 1
            guard (0...1).contains(alpha) else { return .null }
            return .color(RGBA(c[0] / 255, c[1] / 255, c[2] / 255, alpha))
        }
    }

    // MARK: - Helpers

    /// How many stops are <= x (binary search; stops strictly ascending).
    @inline(__always)
    static func countOfStops(_ stops: [Double], atOrBelow x: Double) -> Int {
        var lo = 0, hi = stops.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if stops[mid] <= x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Position of x between two stops, 0...1, shaped by the curve (MapLibre's exponential formula).
    static func factor(_ curve: StyleExpression.Curve, _ x: Double, _ lower: Double, _ upper: Double) -> Double {
        let difference = upper - lower, progress = x - lower
        if difference == 0 { return 0 }
        switch curve {
        case .exponential(let base) where base != 1:
            return (Foundation.pow(base, progress) - 1) / (Foundation.pow(base, difference) - 1)
        default:
            return progress / difference
        }
    }

    /// Numbers blend linearly; colours (or colour strings) blend per RGBA component.
    static func blend(_ a: ExpressionValue, _ b: ExpressionValue, _ t: Double) -> ExpressionValue {
        if case .number(let x) = a, case .number(let y) = b { return .number(x + (y - x) * t) }
        guard let c = a.colorValue, let d = b.colorValue else { return .null }
        func mix(_ u: Double, _ v: Double) -> Double { u + (v - u) * t }
        return .color(RGBA(mix(c.r, d.r), mix(c.g, d.g), mix(c.b, d.b), mix(c.a, d.a)))
    }

    /// `==` / `!=` compare any two values (different types are unequal); ordering needs two
    /// numbers or two strings, else it is an evaluation error (null).
    static func compare(_ op: StyleExpression.Comparison, _ a: ExpressionValue, _ b: ExpressionValue) -> ExpressionValue {
        switch op {
        case .eq: return .bool(a == b)
        case .ne: return .bool(a != b)
        default: break
        }
        let order: Int
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if x.isNaN || y.isNaN { return .bool(false) }
            order = x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)):
            // JavaScript compares strings by UTF-16 code units.
            order = x == y ? 0 : (x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : 1)
        default:
            return .null
        }
        switch op {
        case .lt: return .bool(order < 0)
        case .le: return .bool(order <= 0)
        case .gt: return .bool(order > 0)
        default: return .bool(order >= 0)
        }
    }

    static func convert<S: ExpressionPropertySource>(_ kind: StyleExpression.Conversion, _ args: [StyleExpression.Node], _ s: S) -> ExpressionValue {
        switch kind {
        case .toString:
            return .string(args[0].evaluate(s).stringValue ?? "")
        case .toBoolean:
            switch args[0].evaluate(s) {
            case .null: return .bool(false)
            case .bool(let b): return .bool(b)
            case .number(let d): return .bool(d != 0 && !d.isNaN)
            case .string(let x): return .bool(!x.isEmpty)
            case .color: return .bool(true)
            }
        case .toNumber:
            for a in args {
                switch a.evaluate(s) {
                case .null: return .number(0)
                case .bool(let b): return .number(b ? 1 : 0)
                case .number(let d): return .number(d)
                case .string(let x):
                    let t = x.trimmingCharacters(in: .whitespacesAndNewlines)
                    if t.isEmpty { return .number(0) }  // JavaScript: Number("") is 0
                    if let d = Double(t), !d.isNaN { return .number(d) }
                case .color: break
                }
            }
            return .null
        case .toColor:
            for a in args {
                let v = a.evaluate(s)
                if let c = v.colorValue { return .color(c) }
            }
            return .null
        }
    }

    static func math1(_ op: StyleExpression.Math1, _ x: Double) -> Double {
        switch op {
        case .negate: return -x
        case .abs: return Swift.abs(x)
        case .floor: return x.rounded(.down)
        case .ceil: return x.rounded(.up)
        case .round: return x.rounded()  // halfway away from zero, as the spec says
        case .sqrt: return x.squareRoot()
        case .ln: return Foundation.log(x)
        case .log10: return Foundation.log10(x)
        case .log2: return Foundation.log2(x)
        case .sin: return Foundation.sin(x)
        case .cos: return Foundation.cos(x)
        case .tan: return Foundation.tan(x)
        case .asin: return Foundation.asin(x)
        case .acos: return Foundation.acos(x)
        case .atan: return Foundation.atan(x)
        }
    }

    static func typeName(_ v: ExpressionValue) -> String {
        switch v {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .color: return "color"
        }
    }
}
