import Foundation
import MapRenderCore

/// One option's value as given: words of the command line (`--size 800x600`, each `--basemap F`),
/// a flag, or a manifest value. The table reads every option through these accessors, so a
/// value is parsed, range-checked and described in errors the same way wherever it came from.
public struct OptionValue: Sendable {
    enum Source: Sendable {
        case words([String])
        case flag(Bool)
        case manifest(ManifestValue)
    }
    let source: Source

    /// One word of the command line: `--zoom 3` gives `OptionValue(word: "3")`.
    public init(word: String) { source = .words([word]) }
    /// A repeatable option's words, in order.
    public init(words: [String]) { source = .words(words) }
    /// A flag given on the command line.
    public init(flag: Bool) { source = .flag(flag) }
    init(_ value: ManifestValue) { source = .manifest(value) }

    /// How the value appears in an error message: `"big"` for text, `3` for a number (also the
    /// word `3`, so `--zoom 30` and `zoom: 30` read alike), `true`, a short list, `an object`.
    public var shown: String {
        switch source {
        case .words(let w):
            let one = w.count == 1 ? w[0] : w.joined(separator: ",")
            if Self.isDecimal(one) { return one }
            return ManifestValue.quote(one)
        case .flag(let b): return b ? "true" : "false"
        case .manifest(let v): return v.shown
        }
    }

    /// `3`, `-0.5`, `1e6`: a number as a person writes it (not `0x0`, `nan` or `inf`).
    static func isDecimal(_ s: String) -> Bool {
        guard let d = Double(s), d.isFinite else { return false }
        return s.allSatisfy { "0123456789.-eE".contains($0) }
    }

    /// The text of a word or a manifest string (also one of a manifest's numbers written as
    /// text, which `ManifestValue` keeps as a string), else nil.
    var text: String? {
        switch source {
        case .words(let w): return w.count == 1 ? w[0] : nil
        case .manifest(.string(let s)): return s
        default: return nil
        }
    }

    func fail(_ message: String) -> MapRenderError { MapRenderError(.usage, message) }

    /// A non-empty string.
    func string() throws -> String {
        guard let s = text, !s.isEmpty else { throw fail("expected a non-empty string, got \(shown)") }
        return s
    }

    /// A string, or a non-empty list of strings (repeated words on the command line).
    func strings() throws -> [String] {
        switch source {
        case .words(let w):
            guard !w.isEmpty, w.allSatisfy({ !$0.isEmpty }) else { throw fail("expected a non-empty string, got \(shown)") }
            return w
        case .manifest(.string): return [try string()]
        case .manifest(.array(let a)) where !a.isEmpty:
            return try a.map { item in
                guard case .string(let s) = item, !s.isEmpty else {
                    throw fail("expected a string or a list of strings, got \(item.shown) in the list")
                }
                return s
            }
        default: throw fail("expected a string or a list of strings, got \(shown)")
        }
    }

    func bool() throws -> Bool {
        switch source {
        case .flag(let b), .manifest(.bool(let b)): return b
        default: throw fail("expected true or false, got \(shown)")
        }
    }

    /// A number in `range` (`openLow`: the lower bound itself excluded). Words are read as numbers;
    /// a manifest string is not a number.
    func number(_ range: ClosedRange<Double>, openLow: Bool = false) throws -> Double {
        let shownRange = openLow
            ? "(\(PropertyValue.format(number: range.lowerBound)), \(PropertyValue.format(number: range.upperBound))]"
            : "\(PropertyValue.format(number: range.lowerBound))...\(PropertyValue.format(number: range.upperBound))"
        var d: Double? = nil
        switch source {
        case .words(let w) where w.count == 1: d = Self.isDecimal(w[0]) ? Double(w[0]) : nil
        case .manifest(.number(let n)): d = n
        default: break
        }
        guard let d, d.isFinite, range.contains(d), !(openLow && d == range.lowerBound) else {
            throw fail("expected a number in \(shownRange), got \(shown)")
        }
        return d
    }

    func integer(_ range: ClosedRange<Int>) throws -> Int {
        var d: Double? = nil
        switch source {
        case .words(let w) where w.count == 1: d = Int(w[0]).map(Double.init)
        case .manifest(.number(let n)): d = n
        default: break
        }
        guard let d, d == d.rounded(), d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            throw fail("expected a whole number in \(range.lowerBound)...\(range.upperBound), got \(shown)")
        }
        return Int(d)
    }

    /// One of `choices` (as written, or lower-cased), e.g. `marker: pin`.
    func choice<T>(_ choices: [String], _ make: (String) -> T?) throws -> T {
        if let t = text, let v = make(t) ?? make(t.lowercased()) { return v }
        let list = choices.count <= 2 ? choices.joined(separator: " or ")
            : choices.dropLast().joined(separator: ", ") + " or " + choices.last!
        throw fail("expected \(list), got \(shown)")
    }

    /// Numbers separated by commas (`"-10,35,30,60"`), or a manifest list of numbers; nil when
    /// it is neither.
    func numbers() -> [Double]? {
        if let t = text {
            let parts = t.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }.map { Self.isDecimal($0) ? Double($0) : nil }
            return parts.allSatisfy({ $0 != nil }) ? parts.map { $0! } : nil
        }
        if case .manifest(.array(let a)) = source {
            let p = a.map { item -> Double? in if case .number(let d) = item { return d } else { return nil } }
            return p.allSatisfy({ $0 != nil }) ? p.map { $0! } : nil
        }
        return nil
    }

    /// The value as hashed by `batch --skip-unchanged`.
    var canonicalText: String {
        switch source {
        case .words(let w): return w.map(ManifestValue.quote).joined(separator: ",")
        case .flag(let b): return b ? "true" : "false"
        case .manifest(let v): return v.canonicalText
        }
    }
}
