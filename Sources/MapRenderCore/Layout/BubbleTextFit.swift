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
    /// - a bubble of an animation frame smaller than at rest (growing in or shrinking away,
    ///   `inTransition`) shows its text set smaller as it shrinks, down to the floor; smaller
    ///   still, the disc is drawn at the least radius that holds its number at the floor (never
    ///   beyond its size at rest), so a bubble in transition always shows its number (issue 47)
    ///   and a number never spills over its rim, where it would read as the count of whatever
    ///   lies beside it. With the default style that is about 5 px (its 3 px outline and one
    ///   digit at the floor's 8.4 px): a bubble appears at that size in its first frame of
    ///   growing in, and goes from it in its last of shrinking away. (An animation shows such a
    ///   bubble's count running between its ends, `ClusterContinuity`: a growing bubble's number
    ///   is small while the bubble is.)
    /// - any other count is shown at the style's size (counts are at most five characters).
    public static func fit(_ b: MarkPlan.Bubble, style: Style.Cluster, font: FontSpec, measurer: TextMeasuring) -> Fit {
        guard b.showsText, !b.text.isEmpty else { return Fit(text: "", radius: b.radius, textSize: nil, size: TextSize(width: 0, height: 0)) }
        let aggregate = style.textField.flatMap { b.aggregates[$0] } != nil
        let transition = inTransition(b, style: style)
        var f: Fit
        if aggregate || transition {
            f = fit(b.text, radius: b.radius, strokeWidth: style.strokeWidth, font: font, measurer: measurer)
        } else {
            f = Fit(radius: b.radius, textSize: nil, size: measurer.measure(b.text, font: font))
        }
        f.text = b.text
        if transition && f.radius > style.step(for: b.count).radius {
            // Only a number wider than its bubble at rest: left out rather than grown past it.
            return Fit(text: "", radius: b.radius, textSize: nil, size: TextSize(width: 0, height: 0))
        }
        return f
    }

    /// A bubble cut by the image's edge (a stack on a fixed `--bbox`'s edge) stays on its
    /// coordinate, clipped by the frame as any symbol at a map's edge; its text, which is read,
    /// is never cut (a "400" cut to "40" misreads). A text crossing the edge is moved inward by
    /// the least amount that puts it whole on the image, set smaller (down to `floor` of its
    /// size) when the disc's part on the image is too small for it, and kept inside the bubble's
    /// outline (its box's corners within the radius: the middle of the stroke). Where even the
    /// smallest size does not fit, the text is left out: a bubble without its number rather than
    /// a wrong one.
    public static func keepOnImage(_ batch: inout BubbleBatch, width: Double, height: Double, measurer: TextMeasuring) {
        for i in batch.bubbles.indices {
            let b = batch.bubbles[i]
            guard !b.text.isEmpty, !(b.textBox.x >= 0 && b.textBox.y >= 0 && b.textBox.maxX <= width && b.textBox.maxY <= height)
            else { continue }
            var font = batch.font
            let full = b.textSize ?? font.size
            var size = full
            var placed: Rect?
            while placed == nil {
                font.size = size
                let m = size == full ? TextSize(width: b.textBox.width, height: b.textBox.height) : measurer.measure(b.text, font: font)
                placed = onImage(centre: (b.x, b.y), text: m, radius: b.radius, width: width, height: height)
                if placed != nil || size <= full * floor + 1e-9 { break }
                size = max(full * floor, size * 0.95)
            }
            if let box = placed {
                batch.bubbles[i].textBox = box
                if size != full { batch.bubbles[i].textSize = size }
            } else {
                batch.bubbles[i].text = ""
                batch.bubbles[i].textBox = Rect(x: b.x, y: b.y, width: 0, height: 0)
            }
        }
    }

    /// The box of a text of `size` centred on `centre`, moved the least to lie on the image, if
    /// its corners then lie within `radius` of the centre.
    static func onImage(centre c: (x: Double, y: Double), text size: TextSize, radius: Double, width: Double, height: Double) -> Rect? {
        guard size.width <= width, size.height <= height else { return nil }
        var box = Rect(x: c.x - size.width / 2, y: c.y - size.height / 2, width: size.width, height: size.height)
        box.x = min(max(box.x, 0), width - size.width)
        box.y = min(max(box.y, 0), height - size.height)
        let dx = max(abs(box.x - c.x), abs(box.maxX - c.x)), dy = max(abs(box.y - c.y), abs(box.maxY - c.y))
        return dx * dx + dy * dy <= radius * radius ? box : nil
    }

    /// Whether `b` is drawn smaller than its count's size (an animation frame's bubble growing in
    /// or shrinking away; not a small stack's badge).
    public static func inTransition(_ b: MarkPlan.Bubble, style: Style.Cluster) -> Bool {
        !b.badge && b.radius < style.step(for: b.count).radius - 1e-9
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
