import Foundation

/// Measures text for layout. The Cairo target implements it with Pango; tests use a fake.
/// Layout never imports Cairo.
public protocol TextMeasuring: AnyObject {
    /// The logical size of `text`; with `maxWidth`, wrapped at word (or character) boundaries to that width.
    func measure(_ text: String, font: FontSpec, maxWidth: Double?) -> TextSize
    /// `text` on one line as its clusters (what is drawn as one piece: a letter with its
    /// accents), where each starts and how far it advances, for text laid along a line. The
    /// default measures each character alone (no kerning); Pango's shapes the whole text.
    func glyphRun(_ text: String, font: FontSpec) -> GlyphRun
}

extension TextMeasuring {
    public func measure(_ text: String, font: FontSpec) -> TextSize { measure(text, font: font, maxWidth: nil) }

    public func glyphRun(_ text: String, font: FontSpec) -> GlyphRun {
        var run = GlyphRun()
        let whole = measure(text, font: font)
        run.height = whole.height
        run.baseline = whole.height * 0.8
        var start = 0
        for c in text {
            let piece = String(c)
            let w = measure(piece, font: font).width
            run.clusters.append(piece); run.start.append(start); run.x.append(run.width); run.advance.append(w)
            run.width += w
            start += piece.utf8.count
        }
        return run
    }
}

/// One line of text as clusters in visual order (left to right as drawn), CSS px.
public struct GlyphRun: Sendable, Equatable {
    /// Each cluster's text.
    public var clusters: [String] = []
    /// Where each cluster's text starts in the whole text, UTF-8 bytes: how a backend finds the
    /// cluster's glyphs in its shaping of the whole text (joined Arabic letters, Devanagari
    /// conjuncts), instead of shaping the cluster alone.
    public var start: [Int] = []
    /// Where each cluster starts from the left of the text, and its advance.
    public var x: [Double] = []
    public var advance: [Double] = []
    /// The whole text's logical width and height.
    public var width = 0.0
    public var height = 0.0
    /// How far below the top of the logical box the baseline lies.
    public var baseline = 0.0

    public init() {}
}

/// Measures each distinct (text, font) once: many labels repeat ("Springfield"), and
/// shaping text is the expensive part of layout.
public final class CachingTextMeasurer: TextMeasuring, @unchecked Sendable {
    private let base: TextMeasuring
    private var cache: [Key: TextSize] = [:]
    private var runs: [Key: GlyphRun] = [:]
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

    public func glyphRun(_ text: String, font: FontSpec) -> GlyphRun {
        let k = Key(text: text, font: font, maxWidth: nil)
        lock.lock()
        if let r = runs[k] { lock.unlock(); return r }
        lock.unlock()
        let r = base.glyphRun(text, font: font)
        lock.lock()
        runs[k] = r
        lock.unlock()
        return r
    }
}
