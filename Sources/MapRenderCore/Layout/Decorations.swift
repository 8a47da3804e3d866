import Foundation

/// Lays out the scale bar (bottom left) and the legend (top right).
public enum Decorations {
    static let margin = 8.0

    /// Up to this Mercator scale variation across the map (10%) the bar is drawn plainly; above
    /// it, it is true only at the centre latitude, which its text then states ("500 km at 48°N").
    public static let plainScaleVariation = 0.10
    /// Above this variation (100%: the scale doubles across the map, as on world maps) the bar is
    /// left out with a warning.
    public static let maxScaleVariation = 1.0

    /// How much the Mercator scale (1/cos φ) varies across the view's latitudes: max/min - 1.
    public static func scaleVariation(viewport v: Viewport) -> Double {
        let (north, south) = visibleLatitudes(v)
        let lowest = north >= 0 && south <= 0 ? 0 : min(abs(north), abs(south))
        let highest = max(abs(north), abs(south))
        return cos(lowest * .pi / 180) / cos(highest * .pi / 180) - 1
    }

    /// The one-line warning when the scale bar is left out.
    public static func scaleBarOmitted(viewport v: Viewport, variation: Double) -> String {
        let (north, south) = visibleLatitudes(v)
        func deg(_ d: Double) -> String { "\(Int(abs(d).rounded()))°\(d < 0 ? "S" : "N")" }
        let pct = String(Int((variation * 100).rounded()))
        return "scale bar omitted: the Mercator scale varies by \(pct)% between \(deg(south)) and \(deg(north)) on this map (more than 100%)"
    }

    /// "48°N", "33°S", "0°".
    static func latitudeText(_ lat: Double) -> String {
        let d = Int(abs(lat).rounded())
        return d == 0 ? "0°" : "\(d)°\(lat < 0 ? "S" : "N")"
    }

    static func visibleLatitudes(_ v: Viewport) -> (north: Double, south: Double) {
        let top = v.world(px: 0, py: 0).y, bottom = v.world(px: 0, py: v.height).y
        return (WebMercator.lat(y: min(max(top, 0), 1)), WebMercator.lat(y: min(max(bottom, 0), 1)))
    }

    /// A bar of a round length (1, 2 or 5 × 10^k) no longer than `maxWidth` px, metric and imperial.
    public static func scaleBar(viewport v: Viewport, style: Style.Attribution, textScale: Double,
                                measurer: TextMeasuring, maxWidth: Double = 120,
                                statingLatitude: Bool = false) -> ScaleBarMark {
        let metresPerPixel = WebMercator.metersPerWorldUnit(atLatitude: v.centerLatitude) / v.worldSize
        func nice(_ limit: Double) -> Double {
            let p = pow(10, (log10(limit)).rounded(.down))
            for f in [5.0, 2, 1] where f * p <= limit { return f * p }
            return p
        }
        let font = FontSpec(family: style.font, size: style.size * textScale, weight: .normal)
        var bars: [ScaleBarMark.Bar] = []
        // Metric
        let metres = nice(maxWidth * metresPerPixel)
        var metricText = metres >= 1000 ? "\(PropertyValue.format(number: metres / 1000)) km" : "\(PropertyValue.format(number: metres)) m"
        if statingLatitude { metricText += " at \(latitudeText(v.centerLatitude))" }
        bars.append(.init(length: metres / metresPerPixel, text: metricText, textSize: measurer.measure(metricText, font: font)))
        // Imperial
        let feetPerPixel = metresPerPixel / 0.3048
        let milesLimit = maxWidth * feetPerPixel / 5280
        if milesLimit >= 1 {
            let miles = nice(milesLimit)
            let text = "\(PropertyValue.format(number: miles)) mi"
            bars.append(.init(length: miles * 5280 / feetPerPixel, text: text, textSize: measurer.measure(text, font: font)))
        } else {
            let feet = nice(maxWidth * feetPerPixel)
            let text = "\(PropertyValue.format(number: feet)) ft"
            bars.append(.init(length: feet / feetPerPixel, text: text, textSize: measurer.measure(text, font: font)))
        }
        let rowH = bars.map(\.textSize.height).max()! + 4
        let w = bars.map { $0.length + 6 + $0.textSize.width }.max()! + 8
        let h = rowH * Double(bars.count) + 6
        let box = Rect(x: margin, y: v.height - margin - h, width: w, height: h)
        return ScaleBarMark(x: box.x + 4, y: box.y + 3, bars: bars, font: font, color: style.color,
                            background: style.background, box: box)
    }

    /// A legend for a `match` or `step` colour expression, or nil when the fill is not categorical.
    public static func legend(style: Style, title: String?, viewport v: Viewport, textScale: Double,
                              measurer: TextMeasuring) -> LegendMark? {
        guard let entries = style.legendExpression?.colorCategories, !entries.isEmpty else { return nil }
        let font = FontSpec(family: style.label.font, size: style.attribution.size * 1.1 * textScale, weight: .normal)
        let titleFont = FontSpec(family: style.label.font, size: font.size, weight: .bold)
        let measured = entries.map { LegendMark.Entry(text: $0.0, color: $0.1, textSize: measurer.measure($0.0, font: font)) }
        let titleSize = title.map { measurer.measure($0, font: titleFont) } ?? TextSize(width: 0, height: 0)
        let pad = 6.0, swatch = font.size
        let rowH = max(swatch, measured.map(\.textSize.height).max()!) + 3
        let w = max(titleSize.width, measured.map { swatch + 6 + $0.textSize.width }.max()!) + 2 * pad
        let h = titleSize.height + (title == nil ? 0 : 3) + rowH * Double(measured.count) + 2 * pad - 3
        let box = Rect(x: v.width - margin - w, y: margin, width: w, height: h)
        var mark = LegendMark(title: title, titleSize: titleSize, entries: measured, font: font, titleFont: titleFont,
                              textColor: style.label.color, background: style.attribution.background, box: box,
                              padding: pad, rowHeight: rowH, swatch: swatch)
        // Areas are explained by squares, markers by dots.
        mark.squareSwatches = style.marker.fillExpression == nil
        return mark
    }
}

extension StyleExpression {
    /// (text, colour) per category of a `["match", ["get", f], ...]` or `["step", ["get", f], ...]`
    /// colour expression with literal colours, in the order written; nil for anything else.
    public var colorCategories: [(String, RGBA)]? {
        func color(_ n: Node) -> RGBA? {
            if case .literal(let v) = n { return v.colorValue }
            return nil
        }
        func label(_ v: ExpressionValue) -> String {
            switch v {
            case .string(let s): return s
            case .number(let d): return PropertyValue.format(number: d)
            case .bool(let b): return b ? "true" : "false"
            default: return "null"
            }
        }
        switch node {
        case .match(_, let labels, let outputs, let fallback):
            var out: [(String, RGBA)] = []
            for (k, o) in outputs.enumerated() {
                guard let c = color(o) else { return nil }
                let names = labels.filter { $0.value == k }.map { label($0.key) }.sorted()
                out.append((names.joined(separator: ", "), c))
            }
            if let c = color(fallback) { out.append(("other", c)) }
            return out
        case .step(_, let stops, let outputs):
            var out: [(String, RGBA)] = []
            for (k, o) in outputs.enumerated() {
                guard let c = color(o) else { return nil }
                let lo = k == 0 ? nil : stops[k - 1], hi = k < stops.count ? stops[k] : nil
                let f = Self.legendNumber
                let text = lo == nil ? "< \(f(hi!))" : (hi == nil ? "≥ \(f(lo!))" : "\(f(lo!)) – \(f(hi!))")
                out.append((text, c))
            }
            return out
        case .interpolate(_, _, let stops, let outputs):
            // A continuous scale, shown at its stops: each stop's value with its colour (the
            // colours between are blends of the neighbours).
            var out: [(String, RGBA)] = []
            for (k, o) in outputs.enumerated() {
                guard let c = color(o) else { return nil }
                out.append((Self.legendNumber(stops[k]), c))
            }
            return out
        default:
            return nil
        }
    }

    /// A scale's stop as a reader takes it in: from 10,000 up in thousands, millions or billions
    /// with at most three significant digits (`5M`, `20M`, `1.25B`, `15k`), below as written.
    static func legendNumber(_ d: Double) -> String {
        let a = abs(d)
        for (unit, suffix) in [(1e9, "B"), (1e6, "M"), (1e4, "k")] where a >= unit {
            let scaled = d / (suffix == "k" ? 1e3 : unit)
            let digits = max(0, 2 - Int(log10(abs(scaled)).rounded(.down)))
            let f = (scaled * pow(10, Double(digits))).rounded() / pow(10, Double(digits))
            return PropertyValue.format(number: f) + suffix
        }
        return PropertyValue.format(number: d)
    }

    /// The property a categorical expression reads (for the legend title).
    public var categoryProperty: String? { propertyNames.count == 1 ? propertyNames[0] : nil }
}

extension Style {
    /// The colour scale a legend explains: the markers' data-driven fill, else the first data
    /// fill (or line) layer whose colour reads a property (a choropleth), else the basemap's.
    public var legendExpression: StyleExpression? {
        if let m = marker.fillExpression { return m }
        let layers = shapeLayers
        for source in [StyleLayer.Source.data, .basemap] {
            for l in layers where l.source == source {
                let e = l.type == .fill ? l.fillColor : l.lineColor
                if !e.isFeatureConstant, e.colorCategories != nil { return e }
            }
        }
        return nil
    }
}
