import Foundation

/// A bubble's text that must not spill out of its disc (a long aggregate, `sum_population`).
///
/// The text fits when its measured width is at most the disc's inner diameter (the diameter less
/// the stroke and a pixel of air a side). A text too wide is set smaller, down to `floor` of the
/// style's size; still too wide at the floor, the bubble grows until it fits. A printed map
/// would rather shrink a number a little than grow a symbol whose size means something, but
/// never lets the number run out of it.
public enum BubbleTextFit {
    /// The smallest text size, as a share of the style's.
    public static let floor = 0.7
    /// Air between the text and the disc's rim, CSS px a side.
    public static let air = 1.0

    public struct Fit: Sendable, Equatable {
        /// The text drawn: the bubble's, or "" when it cannot fit (a bubble in transition).
        public var text: String = ""
        public var radius: Double
        /// nil: the style's size fits.
        public var textSize: Double?
        public var size: TextSize
    }

    /// How bubble `b` shows its text with the batch's `font`:
    /// - an aggregate (the style's `text-field`) is fitted by `fit(_:radius:...)`;
    /// - a bubble of an animation frame smaller than at rest (growing in or shrinking away) shows
    ///   its text when it fits as it is (an aggregate: down to the floor), else none: the bubble's
    ///   size is the animation's, so it does not grow;
    /// - any other count is shown at the style's size (counts are at most five characters).
    public static func fit(_ b: MarkPlan.Bubble, style: Style.Cluster, font: FontSpec, measurer: TextMeasuring) -> Fit {
        guard b.showsText, !b.text.isEmpty else { return Fit(text: "", radius: b.radius, textSize: nil, size: TextSize(width: 0, height: 0)) }
        let aggregate = style.textField.flatMap { b.aggregates[$0] } != nil
        let transition = !b.badge && b.radius < style.step(for: b.count).radius - 1e-9
        var f: Fit
        if aggregate {
            f = fit(b.text, radius: b.radius, strokeWidth: style.strokeWidth, font: font, measurer: measurer)
        } else {
            f = Fit(radius: b.radius, textSize: nil, size: measurer.measure(b.text, font: font))
        }
        f.text = b.text
        if transition && (f.radius > b.radius || f.size.width > innerDiameter(radius: b.radius, strokeWidth: style.strokeWidth)) {
            return Fit(text: "", radius: b.radius, textSize: nil, size: TextSize(width: 0, height: 0))
        }
        return f
    }

    public static func innerDiameter(radius: Double, strokeWidth: Double) -> Double {
        2 * radius - strokeWidth - 2 * air
    }

    public static func fit(_ text: String, radius: Double, strokeWidth: Double, font: FontSpec,
                           measurer: TextMeasuring) -> Fit {
        let full = measurer.measure(text, font: font)
        let inner = innerDiameter(radius: radius, strokeWidth: strokeWidth)
        guard full.width > inner, full.width > 0 else { return Fit(text: text, radius: radius, textSize: nil, size: full) }
        // Text width scales about linearly with size; measured again, and stepped down until it
        // fits (hinting can make a size a little wider than the ratio says).
        var size = max(font.size * floor, font.size * inner / full.width)
        var f = font
        while true {
            f.size = size
            let m = measurer.measure(text, font: f)
            if m.width <= inner { return Fit(text: text, radius: radius, textSize: size, size: m) }
            if size <= font.size * floor {
                let grown = (m.width + strokeWidth + 2 * air) / 2
                return Fit(text: text, radius: max(radius, grown), textSize: size, size: m)
            }
            size = max(font.size * floor, size * 0.95)
        }
    }
}
