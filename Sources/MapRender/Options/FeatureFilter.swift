import Foundation
import MapRenderCore

/// A filter expression with its normalised JSON text.
///
/// The syntax is MapLibre's expressions, as in the style format: `["==", ["get", "country"], "FR"]`,
/// `["all", [">=", ["get", "population"], 1e6], ["in", ["get", "country"], ["literal", ["FR", "DE"]]]]`.
/// A point is kept when the expression gives `true`; `zoom` cannot be used (points are selected
/// before the view is known).
public struct FeatureFilter: Sendable {
    public var expression: StyleExpression
    /// Compact JSON of the expression, as hashed by `--skip-unchanged`.
    public var source: String

    /// Parses JSON text: `["==", ["get", "country"], "FR"]`, or one comparison: `country == "FR"`.
    public init(jsonText: String) throws {
        try self.init(OptionValue(word: jsonText), file: "filter", path: "filter")
    }

    init(expression: StyleExpression, source: String) {
        self.expression = expression
        self.source = source
    }

    /// The one reading of a filter, for `render --filter` and a manifest's `filter`: an
    /// expression (a manifest list, or text starting with `[`), or text with one comparison.
    init(_ given: OptionValue, file: String, path: String) throws {
        var value: ManifestValue
        switch given.source {
        case .manifest(let v): value = v
        default: value = .string(given.text ?? "")
        }
        if case .string(let text) = value {
            if text.drop(while: { $0 == " " }).hasPrefix("[") {
                let data = Data(text.utf8)
                do {
                    value = ManifestValue(json: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
                } catch {
                    throw MapRenderError(.style, "\(file): \(path): not valid JSON: \(Style.describeJSONError(error, in: data))")
                }
            } else if let converted = Self.simpleComparison(text) {
                value = converted
            } else {
                throw MapRenderError(.style, "\(file): \(path): expected an expression like [\"==\", [\"get\", \"country\"], \"FR\"] "
                                     + "or a comparison like country == \"FR\", got \(given.shown)")
            }
        }
        guard case .array = value else {
            throw MapRenderError(.style, "\(file): \(path): expected an expression like [\"==\", [\"get\", \"country\"], \"FR\"], got \(value.shown)")
        }
        let e = try StyleExpression.parse(value.jsonObject, file: file, path: path, expecting: .boolean)
        guard e.isZoomConstant else {
            throw MapRenderError(.style, "\(file): \(path): a filter cannot use [\"zoom\"]: points are chosen before the view")
        }
        expression = e
        source = value.canonicalText
    }

    /// `FIELD OP VALUE` with OP one of `== != < <= > >=` and VALUE a quoted string, a number,
    /// `true` or `false`: the one-comparison shorthand, turned into the expression array.
    static func simpleComparison(_ text: String) -> ManifestValue? {
        let pattern = #"^\s*([A-Za-z_][A-Za-z0-9_.:-]*)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$"#
        guard let re = try? NSRegularExpression(pattern: pattern),
              let m = re.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), m.numberOfRanges == 4,
              let f = Range(m.range(at: 1), in: text), let o = Range(m.range(at: 2), in: text),
              let v = Range(m.range(at: 3), in: text) else { return nil }
        let raw = String(text[v])
        let value: ManifestValue
        if raw.count >= 2, let q = raw.first, q == "\"" || q == "'", raw.last == q {
            let inner = raw.dropFirst().dropLast()
            guard !inner.contains(q) else { return nil }
            value = .string(String(inner))
        } else if raw == "true" || raw == "false" {
            value = .bool(raw == "true")
        } else if let d = Double(raw), d.isFinite {
            value = .number(d)
        } else {
            return nil
        }
        return .array([.string(String(text[o])), .array([.string("get"), .string(String(text[f]))]), value])
    }
}
