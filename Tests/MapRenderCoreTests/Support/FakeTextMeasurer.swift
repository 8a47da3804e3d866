@testable import MapRenderCore

/// Measures text as `size * 0.6` per character wide and `size * 1.2` high, and counts calls.
final class FakeTextMeasurer: TextMeasuring {
    var calls = 0
    func measure(_ text: String, font: FontSpec, maxWidth: Double?) -> TextSize {
        calls += 1
        let w = Double(text.count) * font.size * 0.6
        guard let m = maxWidth, w > m else { return TextSize(width: w, height: font.size * 1.2) }
        let lines = (w / m).rounded(.up)
        return TextSize(width: m, height: font.size * 1.2 * lines)
    }
}
