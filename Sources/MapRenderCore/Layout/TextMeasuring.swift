import Foundation

/// Measures text for layout. The Cairo target implements it with Pango; tests use a fake.
/// Layout never imports Cairo.
public protocol TextMeasuring: AnyObject {
    /// The logical size of `text`; with `maxWidth`, wrapped at word (or character) boundaries to that width.
    func measure(_ text: String, font: FontSpec, maxWidth: Double?) -> TextSize
}

extension TextMeasuring {
    public func measure(_ text: String, font: FontSpec) -> TextSize { measure(text, font: font, maxWidth: nil) }
}

/// Measures each distinct (text, font) once: many labels repeat ("Springfield"), and
/// shaping text is the expensive part of layout.
public final class CachingTextMeasurer: TextMeasuring, @unchecked Sendable {
    private let base: TextMeasuring
    private var cache: [Key: TextSize] = [:]
    private let lock = NSLock()
    public private(set) var misses = 0

    struct Key: Hashable { var text: String; var font: FontSpec; var maxWidth: Double? }

    public init(_ base: TextMeasuring) { self.base = base }

    public func measure(_ text: String, font: FontSpec, maxWidth: Double?) -> TextSize {
        let k = Key(text: text, font: font, maxWidth: maxWidth)
        lock.lock()
        if let s = cache[k] { lock.unlock(); return s }
        lock.unlock()
        let s = base.measure(text, font: font, maxWidth: maxWidth)
        lock.lock()
        cache[k] = s
        misses += 1
        lock.unlock()
        return s
    }
}
