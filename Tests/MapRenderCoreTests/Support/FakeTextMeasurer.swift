@testable import MapRenderCore

/// Measures text as `size * 0.6` per character wide and `size * 1.2` high, and counts calls.
final class FakeTextMeasurer: TextMeasuring {
    var calls = 0
    func measure(_ text: String, font: FontSpec) -> TextSize {
        calls += 1
        return TextSize(width: Double(text.count) * font.size * 0.6, height: font.size * 1.2)
    }
}
