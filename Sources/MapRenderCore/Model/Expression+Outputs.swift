extension StyleExpression {
    /// Every value the expression can give, when each is written in it as a literal: a constant,
    /// or `match`, `step`, `case` and `coalesce` (nested in each other) whose outputs are
    /// constants, with `null` for a `get` among `coalesce`'s arguments that is missing; nil
    /// when an output is computed (`["get", "icon"]`, `concat`).
    ///
    /// For keys whose values name files (`marker.icon`): the style names every file it may
    /// use, so each is read and checked once when the style is, never a path from the data.
    ///
    ///     ["match", ["get", "kind"], "cafe", "cafe.svg", "pin.png"]   // ["cafe.svg", "pin.png"]
    public var literalOutputs: [ExpressionValue]? {
        var out: [ExpressionValue] = []
        func collect(_ n: Node) -> Bool {
            switch n {
            case .literal(let v):
                if !out.contains(v) { out.append(v) }
                return true
            case .match(_, _, let outputs, let fallback): return outputs.allSatisfy(collect) && collect(fallback)
            case .step(_, _, let outputs): return outputs.allSatisfy(collect)
            case .cases(_, let outputs, let fallback): return outputs.allSatisfy(collect) && collect(fallback)
            case .coalesce(let args): return args.allSatisfy(collect)
            default: return false
            }
        }
        return collect(node) ? out : nil
    }
}
