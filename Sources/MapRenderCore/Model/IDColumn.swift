/// The points' ids, one per point: a collection of `PropertyValue`s that keeps them as plain
/// `Double`s while every id is a number (8 bytes a point instead of a `PropertyValue`'s 24: a
/// million numbered rows keep 8 MB, not 24), and as values from the first id that is not.
///
/// ```swift
/// var ids: IDColumn = [.number(1), .number(2)]   // stored as numbers
/// ids.append(.string("a"))                        // now stored as values
/// ```
public struct IDColumn: RandomAccessCollection, MutableCollection, RangeReplaceableCollection,
    ExpressibleByArrayLiteral, Equatable, Sendable {
    /// The ids while all are numbers (their bits kept as they were, -0 and NaN included).
    private var numbers: [Double] = []
    /// The ids once one is not a number; `numbers` is then empty.
    private var values: [PropertyValue]?

    public init() {}

    /// Whether the ids are kept as plain numbers (8 bytes each).
    var keepsNumbers: Bool { values == nil }

    public init(arrayLiteral elements: PropertyValue...) {
        self.init(elements)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { values?.count ?? numbers.count }

    public subscript(i: Int) -> PropertyValue {
        get { values?[i] ?? .number(numbers[i]) }
        set {
            if values == nil, case .number(let d) = newValue {
                numbers[i] = d
            } else {
                storeAsValues()
                values![i] = newValue
            }
        }
    }

    public mutating func append(_ id: PropertyValue) {
        if values == nil, case .number(let d) = id {
            numbers.append(d)
        } else {
            storeAsValues()
            values!.append(id)
        }
    }

    public mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with ids: C) where C.Element == PropertyValue {
        if values == nil, ids.allSatisfy({ if case .number = $0 { return true } else { return false } }) {
            numbers.replaceSubrange(range, with: ids.lazy.map { if case .number(let d) = $0 { return d } else { return 0 } })
        } else {
            storeAsValues()
            values!.replaceSubrange(range, with: ids)
        }
    }

    public mutating func reserveCapacity(_ n: Int) {
        if values == nil { numbers.reserveCapacity(n) } else { values!.reserveCapacity(n) }
    }

    public static func == (a: IDColumn, b: IDColumn) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }

    private mutating func storeAsValues() {
        guard values == nil else { return }
        values = numbers.map { .number($0) }
        numbers = []
    }
}
