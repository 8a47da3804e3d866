import Foundation
import Yams

/// One value of a batch manifest, the same whether it came from JSON or YAML.
///
/// Object keys keep the file's order for YAML; JSON objects come sorted by key
/// (JSONSerialization does not keep the order), so messages are in a stable order either way.
indirect enum ManifestValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ManifestValue])
    case object([(key: String, value: ManifestValue)])

    static func == (a: ManifestValue, b: ManifestValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The value as `JSONSerialization` would give it (for `StyleExpression.parse`).
    var jsonObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .number(let d): return NSNumber(value: d)
        case .string(let s): return s
        case .array(let a): return a.map(\.jsonObject)
        case .object(let o): return Dictionary(o.map { ($0.key, $0.value.jsonObject) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// Compact JSON with sorted keys: the same text for the same value, used in hashes and messages.
    var canonicalText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return PropertyValue.format(number: d)
        case .string(let s): return Self.quote(s)
        case .array(let a): return "[" + a.map(\.canonicalText).joined(separator: ",") + "]"
        case .object(let o):
            return "{" + o.sorted { $0.key < $1.key }.map { Self.quote($0.key) + ":" + $0.value.canonicalText }
                .joined(separator: ",") + "}"
        }
    }

    /// How a value is shown in an error message: `"big"`, `3`, `true`, `a list`, `an object`.
    var shown: String {
        switch self {
        case .array: return canonicalText.count <= 60 ? canonicalText : "a list"
        case .object: return "an object"
        default: return canonicalText
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

// MARK: - Reading JSON and YAML

extension ManifestValue {
    enum Syntax { case json, yaml }

    /// JSON for `.json`, YAML for `.yaml`/`.yml`; otherwise JSON when the text starts with `{` or `[`.
    static func syntax(name: String, data: Data) -> Syntax {
        switch URL(fileURLWithPath: name).pathExtension.lowercased() {
        case "json": return .json
        case "yaml", "yml": return .yaml
        default:
            let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
            return first == UInt8(ascii: "{") || first == UInt8(ascii: "[") ? .json : .yaml
        }
    }

    /// Parses the whole manifest; the error's message says where (line and column) and what.
    static func parse(_ data: Data, syntax: Syntax) throws -> ManifestValue {
        switch syntax {
        case .json:
            try ManifestBounds.checkJSON(data)
            do {
                return ManifestValue(json: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
            } catch {
                throw ManifestSyntaxError(message: "not valid JSON: " + Style.describeJSONError(error, in: data))
            }
        case .yaml:
            guard let text = String(data: data, encoding: .utf8) else {
                throw ManifestSyntaxError(message: "not valid YAML: not UTF-8 text")
            }
            try ManifestBounds.checkYAML(Array(data))
            do {
                guard let node = try Yams.compose(yaml: text, Self.yamlResolver) else {
                    throw ManifestSyntaxError(message: "the manifest is empty")
                }
                return try ManifestValue(yaml: node)
            } catch let e as ManifestSyntaxError {
                throw e
            } catch {
                throw ManifestSyntaxError(message: "not valid YAML: " + describeYAMLError(error))
            }
        }
    }

    init(json v: Any) {
        if v is NSNull {
            self = .null
        } else if let s = v as? String {
            self = .string(s)
        } else if String(describing: type(of: v)).contains("Boolean") || type(of: v) == Bool.self, let b = v as? Bool {
            self = .bool(b)
        } else if let n = v as? NSNumber {
            self = .number(n.doubleValue)
        } else if let a = v as? [Any] {
            self = .array(a.map(ManifestValue.init(json:)))
        } else if let o = v as? [String: Any] {
            self = .object(o.keys.sorted().map { (key: $0, value: ManifestValue(json: o[$0]!)) })
        } else {
            self = .string("\(v)")
        }
    }

    /// YAML 1.2 core-schema booleans only (`true`/`false`): `NO` (Norway) and `on` stay strings,
    /// and dates stay strings, so filters compare them as written.
    static let yamlResolver: Resolver = {
        let r = Resolver.default.removing(.timestamp)
        return (try? r.replacing(.bool, with: "^(?:true|True|TRUE|false|False|FALSE)$")) ?? r
    }()

    init(yaml node: Node) throws {
        switch node {
        case .scalar:
            switch Tag.Name(rawValue: node.tag.description) {
            case .null: self = .null
            case .bool: self = .bool(node.bool ?? false)
            case .int, .float:
                // Hex, octal and the like (`0x0`, `0o17`) stay text: `size: 0x0` is a size, not 0.
                let text = node.string ?? ""
                if text.lowercased().contains(where: { "xo_".contains($0) }) {
                    self = .string(text)
                } else if let d = node.float ?? node.int.map(Double.init) {
                    self = .number(d)
                } else {
                    self = .string(text)
                }
            default: self = .string(node.string ?? "")
            }
        case .sequence(let seq):
            self = .array(try seq.map { try ManifestValue(yaml: $0) })
        case .mapping(let map):
            var pairs: [(key: String, value: ManifestValue)] = []
            for (k, v) in map {
                let key = k.string ?? ""
                if pairs.contains(where: { $0.key == key }) {
                    let line = k.mark.map { "line \($0.line): " } ?? ""
                    throw ManifestSyntaxError(message: "not valid YAML: \(line)duplicate key '\(key)'")
                }
                pairs.append((key: key, value: try ManifestValue(yaml: v)))
            }
            self = .object(pairs)
        }
    }

    static func describeYAMLError(_ error: Error) -> String {
        guard let y = error as? YamlError else { return "\(error)" }
        switch y {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            return "line \(mark.line), column \(mark.column): \(problem)"
        default:
            return "\(y)"
        }
    }
}

/// A manifest that is not valid JSON or YAML.
struct ManifestSyntaxError: Error {
    var message: String
}
