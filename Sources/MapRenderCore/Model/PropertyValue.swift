/// One property value of a point, keeping its JSON type.
///
/// Arrays and objects are kept as their JSON text (`.json`), so they round-trip
/// through `maprender cluster` without being reinterpreted.
public enum PropertyValue: Hashable, Sendable {
    /// The feature or row has no such property (distinct from an explicit `null`).
    case missing
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// An array or object, as compact JSON text.
    case json(String)

    /// The value as text for labels: numbers without a trailing `.0`, strings as they are.
    public var displayText: String? {
        switch self {
        case .missing, .null: return nil
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return PropertyValue.format(number: d)
        case .string(let s): return s
        case .json(let s): return s
        }
    }

    /// Whether `displayText` is a non-empty text, without making it.
    public var hasDisplayText: Bool {
        switch self {
        case .missing, .null: return false
        case .bool, .number: return true
        case .string(let s), .json(let s): return !s.isEmpty
        }
    }

    public var numberValue: Double? {
        switch self {
        case .number(let d): return d
        case .string(let s): return Double(s)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// Formats a number the way JSON writers do: integers without a fraction.
    public static func format(number d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 {
            return String(Int64(d))
        }
        return "\(d)"
    }
}
