import Foundation

/// Texts inside markers: the simplestyle `marker-symbol` of a point (a digit, a letter or a
/// short text), or its number (`--number-markers`), drawn in the pin's head, the circle or the
/// square, in black or white, whichever contrasts more with the marker's fill (WCAG 2 relative
/// luminance), measured with the map's text measurer (Pango) and fitting the marker, which grows
/// when the text needs more room.
///
/// A text of more than `maxCharacters` characters (grapheme clusters) is refused: the marker is
/// drawn without it and one warning counts such points. (simplestyle's `marker-symbol` may also
/// name a Maki icon, `rocket`; those are not drawn either.)
public enum MarkerTextLayout {
    /// The property read.
    public static let property = "marker-symbol"
    /// The longest text drawn, in characters.
    public static let maxCharacters = 3
    /// The smallest text size, CSS px (before `--text-scale`): a marker too small for it grows.
    public static let minTextSize = 9.0
    /// The largest text size, CSS px (before `--text-scale`).
    public static let maxTextSize = 16.0
    /// The height of digits and capitals, as a share of the font size (DejaVu Sans: 0.73).
    public static let capHeight = 0.73

    /// Gives every marker of `batch` whose point (`drawn[k]`) has a text a symbol with that
    /// text, grown to fit it. Symbols are shared: one per (symbol, text).
    /// - Returns: a warning when texts were refused, naming the first point.
    /// - Complexity: O(markers), one measure per distinct (text, font).
    public static func apply(_ batch: inout MarkerBatch, drawn: [Int], points: PointSet, family: String,
                             textScale: Double, measurer: TextMeasuring) -> String? {
        guard let column = points.properties.columnIndex(property), batch.count > 0 else { return nil }
        var made: [Key: UInt16] = [:]
        var refused = 0, firstRefused: (point: Int, text: String)?
        for k in 0..<batch.count {
            let i = drawn[k]
            guard let raw = points.properties.value(column: column, row: i).displayText else { continue }
            let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            guard text.count <= maxCharacters else {
                refused += 1
                if firstRefused == nil { firstRefused = (i, text) }
                continue
            }
            // An icon is drawn as it is, without a text.
            if batch.symbols[Int(batch.symbol[k])].icon != nil { continue }
            let key = Key(symbol: batch.symbol[k], text: text)
            if let s = made[key] { batch.symbol[k] = s; continue }
            guard batch.symbols.count < Int(UInt16.max) else { continue }
            let grown = symbol(batch.symbols[Int(batch.symbol[k])], text: text, family: family,
                               textScale: textScale, measurer: measurer)
            let s = UInt16(batch.symbols.count)
            batch.symbols.append(grown)
            made[key] = s
            batch.symbol[k] = s
        }
        guard let first = firstRefused else { return nil }
        let shown = first.text.count > 20 ? String(first.text.prefix(20)) + "..." : first.text
        return "marker-symbol: '\(shown)' on point \(first.point) has \(first.text.count) characters; at most \(maxCharacters) are drawn inside a marker, so it is drawn without"
            + (refused > 1 ? " (\(refused) markers in all)" : "")
    }

    struct Key: Hashable { var symbol: UInt16; var text: String }

    /// The symbol with `text` inside, grown when the text does not fit: the text's box (its
    /// measured width, and the height of capitals and digits) must lie inside the pin's head
    /// or the circle, or inside the square, a pixel and half the outline in from its edge.
    public static func symbol(_ base: MarkerSymbol, text: String, family: String, textScale: Double,
                              measurer: TextMeasuring) -> MarkerSymbol {
        var s = base
        let inner = s.shape == .pin ? s.pinHeadRadius : s.size / 2
        let size = min(max(1.1 * inner, minTextSize), maxTextSize) * textScale
        let font = FontSpec(family: family, size: size, weight: .bold)
        let measured = measurer.measure(text, font: font)
        let pad = s.strokeWidth / 2 + 1
        let needed = room(shape: s.shape, width: measured.width, capHeight: capHeight * size, pad: pad)
        switch s.shape {
        case .pin: s.size = max(s.size, needed / 0.36)
        case .circle, .square: s.size = max(s.size, 2 * needed)
        }
        s.text = MarkerText(text: text, font: font, color: textColor(on: s.fill, opacity: s.opacity),
                            width: measured.width, height: measured.height)
        return s
    }

    /// The radius (pin head, circle) or half side (square) a text box needs.
    public static func room(shape: MarkerShape, width: Double, capHeight: Double, pad: Double) -> Double {
        switch shape {
        case .pin, .circle: return (width * width / 4 + capHeight * capHeight / 4).squareRoot() + pad
        case .square: return max(width, capHeight) / 2 + pad
        }
    }

    /// Whether a symbol's text fits it as `symbol(...)` requires.
    public static func fits(_ s: MarkerSymbol) -> Bool {
        guard let t = s.text else { return true }
        let inner = s.shape == .pin ? s.pinHeadRadius : s.size / 2
        return room(shape: s.shape, width: t.width, capHeight: capHeight * t.font.size, pad: s.strokeWidth / 2 + 1) <= inner + 1e-9
    }

    /// Black or white, whichever has the higher WCAG contrast ratio with the fill as it shows
    /// on a white map (the fill's and the symbol's opacity composited over white). The better
    /// of the two is never below 4.58:1.
    public static func textColor(on fill: RGBA, opacity: Double = 1) -> RGBA {
        let shown = over(fill, alpha: fill.a * opacity)
        return contrastRatio(shown, .white) >= contrastRatio(shown, .black) ? .white : .black
    }

    static func over(_ c: RGBA, alpha: Double) -> RGBA {
        let a = min(max(alpha, 0), 1)
        return RGBA(c.r * a + (1 - a), c.g * a + (1 - a), c.b * a + (1 - a))
    }

    /// WCAG 2 relative luminance of an sRGB colour (alpha ignored).
    public static func relativeLuminance(_ c: RGBA) -> Double {
        func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b)
    }

    /// WCAG 2 contrast ratio, 1...21.
    public static func contrastRatio(_ a: RGBA, _ b: RGBA) -> Double {
        let la = relativeLuminance(a), lb = relativeLuminance(b)
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }
}
