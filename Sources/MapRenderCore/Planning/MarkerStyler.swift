/// Resolves each point's marker symbol from the style and the simplestyle-spec properties
/// `marker-color` and `marker-size` (small / medium / large), before any drawing.
public struct MarkerStyles: Sendable {
    /// Distinct symbols (few: one per colour/size combination used).
    public var symbols: [MarkerSymbol]
    /// Symbol index per point.
    public var index: [UInt16]
    /// Expression results that could not be used as they were (a size out of range or not a
    /// number, a fill that is not a colour): one line per style key, naming the first feature.
    public var issues: [String] = []
    /// The same as errors under `--strict`: without the fallback the warning names, which is
    /// never drawn.
    public var strictIssues: [String] = []

    /// How far any used symbol reaches from its anchor (for fitting the view).
    public var extent: EdgeInsets {
        symbols.reduce(EdgeInsets.zero) { acc, s in
            let e = s.extent
            return EdgeInsets(top: max(acc.top, e.top), right: max(acc.right, e.right),
                              bottom: max(acc.bottom, e.bottom), left: max(acc.left, e.left))
        }
    }
}

public enum MarkerStyler {
    /// simplestyle-spec marker sizes as factors of the style's marker size.
    public static let sizeFactors: [String: Double] = ["small": 0.75, "medium": 1.0, "large": 1.35]

    /// The properties the style's expressions and simplestyle read (so readers can keep only these).
    public static func propertyNames(style: Style) -> Set<String> {
        var s: Set<String> = ["marker-color", "marker-size"]
        for e in [style.marker.fillExpression, style.marker.sizeExpression, style.marker.icon].compactMap({ $0 }) {
            s.formUnion(e.propertyNames)
        }
        return s
    }

    /// The outline scales with the marker: at most a sixth of its size (a 4 px dot gets 0.67 px,
    /// not the style's 1.5 px, which would leave a dense field of dots mostly white).
    public static func outline(_ width: Double, size: Double) -> Double { min(width, size / 6) }

    /// - Parameter zoom: the zoom data-driven expressions see (`["zoom"]`).
    /// - Parameters:
    ///   - opacity, scale: per-point factors (animation fades and grow-ins), quantised to 1/16 so
    ///     a frame has few distinct symbols.
    public static func resolve(points: PointSet, style: Style, zoom: Double = 0,
                               opacity: [Double]? = nil, scale: [Double]? = nil) -> MarkerStyles {
        let m = style.marker
        var base = MarkerSymbol(shape: m.shape, size: m.size, fill: m.fill, stroke: m.stroke,
                                strokeWidth: outline(m.strokeWidth, size: m.size), opacity: m.opacity)
        var iconIssue = ValueIssue(key: "marker.icon")
        // An icon for every point (`--marker-icon`, a constant `marker.icon`): the base symbol's.
        let iconExpr = m.icon.flatMap { $0.isConstant ? nil : $0.bind(to: points.properties) }
        if let v = m.icon?.constantValue, case .string(let name) = v, !name.isEmpty {
            if let icon = m.icons[name] {
                base.icon = icon
                base.size = icon.height
            } else if points.count > 0 {
                iconIssue.note(0, "gave \"\(name)\", an icon not loaded", fallback: "the marker shape is drawn")
            }
        }
        let colorCol = points.properties.columnIndex("marker-color")
        let sizeCol = points.properties.columnIndex("marker-size")
        let fillExpr = m.fillExpression?.bind(to: points.properties)
        let sizeExpr = m.sizeExpression?.bind(to: points.properties)
        guard colorCol != nil || sizeCol != nil || fillExpr != nil || sizeExpr != nil || opacity != nil || scale != nil
                || iconExpr != nil else {
            return MarkerStyles(symbols: [base], index: [UInt16](repeating: 0, count: points.count),
                                issues: [iconIssue].compactMap(\.message), strictIssues: [iconIssue].compactMap(\.strictMessage))
        }
        var symbols = [base]
        var lookup: [MarkerSymbol: UInt16] = [base: 0]
        // Per distinct property text, not per point: parse each colour string once.
        var colorCache: [String: RGBA?] = [:]
        var index = [UInt16](repeating: 0, count: points.count)
        var fillIssue = ValueIssue(key: "marker.fill"), sizeIssue = ValueIssue(key: "marker.size")
        for i in 0..<points.count {
            var s = base
            if let e = fillExpr {
                let v = e.evaluate(row: i, zoom: zoom)
                if let c = v.colorValue { s.fill = c } else { fillIssue.note(i, "gave \(v), not a colour", fallback: "the style's fill is used") }
            }
            if let e = sizeExpr {
                let r = e.evaluate(row: i, zoom: zoom)
                if let v = r.numberValue, v.isFinite {
                    // Quantised to a quarter pixel: sizes from a continuous scale make few distinct symbols.
                    s.size = min(max((v * 4).rounded() / 4, 1), 256)
                    if !(1...256).contains(v) { sizeIssue.note(i, "gave \(r), outside 1...256", fallback: "drawn at \(PropertyValue.format(number: s.size)) px") }
                } else {
                    sizeIssue.note(i, "gave \(r), not a finite number", fallback: "the style's size \(PropertyValue.format(number: m.size)) px is used")
                }
            }
            if let c = colorCol, case .string(let text) = points.properties.value(column: c, row: i) {
                let parsed: RGBA?
                if let cached = colorCache[text] { parsed = cached } else {
                    // simplestyle allows "f00" without '#'.
                    parsed = RGBA.parse(text) ?? RGBA.parse("#" + text)
                    colorCache[text] = parsed
                }
                if let col = parsed { s.fill = col }
            }
            if let c = sizeCol, case .string(let text) = points.properties.value(column: c, row: i),
               let f = sizeFactors[text.lowercased()] {
                s.size = m.size * f
            }
            if let e = iconExpr {
                // Per category: an icon the style names (loaded with it), or "" / null for the shape.
                if case .string(let name) = e.evaluate(row: i, zoom: zoom), !name.isEmpty {
                    if let icon = m.icons[name] { s.icon = icon } else {
                        iconIssue.note(i, "gave \"\(name)\", an icon not loaded", fallback: "the marker shape is drawn")
                    }
                }
            }
            if let icon = s.icon { s.size = icon.height }
            if let o = opacity?[i], o < 1 { s.opacity *= max(0, (o * 16).rounded() / 16) }
            if let f = scale?[i], f < 1 { s.size = max(1, s.size * max(1.0 / 16, (f * 16).rounded() / 16)) }
            s.strokeWidth = outline(m.strokeWidth, size: s.size)
            if s == base { continue }
            if let k = lookup[s] {
                index[i] = k
            } else if symbols.count < Int(UInt16.max) {
                let k = UInt16(symbols.count)
                symbols.append(s)
                lookup[s] = k
                index[i] = k
            }
        }
        return MarkerStyles(symbols: symbols, index: index, issues: [fillIssue, sizeIssue, iconIssue].compactMap(\.message),
                            strictIssues: [fillIssue, sizeIssue, iconIssue].compactMap(\.strictMessage))
    }
}

/// The first bad value of one style key and how many features had one: a warning that names
/// one feature instead of one line per feature.
public struct ValueIssue: Sendable {
    let key: String
    private var first: String?
    private var count = 0

    public init(key: String) { self.key = key }

    private var fallback: String?

    public mutating func note(_ feature: Int, _ what: @autoclosure () -> String,
                              fallback: @autoclosure () -> String? = nil) {
        if first == nil {
            first = "feature \(feature): the expression \(what())"
            self.fallback = fallback()
        }
        count += 1
    }

    /// The warning: the first bad value, what was done instead, and how many features had one.
    public var message: String? { line(withFallback: true) }

    /// The error under `--strict`, where nothing is drawn instead.
    public var strictMessage: String? { line(withFallback: false) }

    private func line(withFallback: Bool) -> String? {
        first.map { "\(key): \($0)" + (withFallback ? fallback.map { "; \($0)" } ?? "" : "")
            + (count > 1 ? " (\(count) features in all)" : "") }
    }
}
