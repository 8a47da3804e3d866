/// Properties of a point set, stored by column: one array per property name.
///
/// Columns keep memory proportional to the properties actually kept; readers
/// can be told to keep only the columns a render needs (`InputOptions.keepProperties`).
public struct PropertyTable: Sendable {
    public private(set) var names: [String] = []
    public private(set) var columns: [[PropertyValue]] = []
    private var indexByName: [String: Int] = [:]
    public private(set) var rowCount = 0

    public init() {}

    /// The index of a column, or nil when no row has that property.
    public func columnIndex(_ name: String) -> Int? { indexByName[name] }

    public func value(_ name: String, row: Int) -> PropertyValue {
        guard let c = indexByName[name] else { return .missing }
        return columns[c][row]
    }

    public func value(column: Int, row: Int) -> PropertyValue { columns[column][row] }

    /// The column's index, creating it (filled with `.missing` for earlier rows) if needed.
    @discardableResult
    public mutating func addColumn(_ name: String) -> Int {
        if let c = indexByName[name] { return c }
        indexByName[name] = names.count
        names.append(name)
        columns.append([PropertyValue](repeating: .missing, count: rowCount))
        return names.count - 1
    }

    /// Appends one row; `values` are (column index, value) pairs, other columns get `.missing`.
    public mutating func appendRow(_ values: [(Int, PropertyValue)]) {
        for c in columns.indices { columns[c].append(.missing) }
        for (c, v) in values { columns[c][rowCount] = v }
        rowCount += 1
    }

    /// Appends one row given a value per column, in column order (fast path for CSV).
    public mutating func appendRow(dense values: [PropertyValue]) {
        precondition(values.count == columns.count)
        for c in columns.indices { columns[c].append(values[c]) }
        rowCount += 1
    }

    /// Appends a row with every column `.missing` (a point without properties).
    public mutating func appendEmptyRow() {
        for c in columns.indices { columns[c].append(.missing) }
        rowCount += 1
    }

    /// Sets one value (the row must exist).
    public mutating func set(column: Int, row: Int, _ value: PropertyValue) { columns[column][row] = value }

    /// A new table holding only the given rows, in that order.
    public func selecting(rows: [Int]) -> PropertyTable {
        var t = PropertyTable()
        t.names = names
        t.indexByName = indexByName
        t.columns = columns.map { col in rows.map { col[$0] } }
        t.rowCount = rows.count
        return t
    }

    /// The properties of one row as (name, value) pairs, skipping missing ones, in column order.
    public func row(_ r: Int) -> [(String, PropertyValue)] {
        var out: [(String, PropertyValue)] = []
        for c in columns.indices {
            let v = columns[c][r]
            if case .missing = v { continue }
            out.append((names[c], v))
        }
        return out
    }

    /// Appends the rows of a table with the same columns, in the same order.
    public mutating func append(contentsOf other: PropertyTable) {
        precondition(other.names == names, "rows are appended from a table with the same columns")
        for c in columns.indices { columns[c].append(contentsOf: other.columns[c]) }
        rowCount += other.rowCount
    }

    /// Appends the rows of any table, column by column: its columns merged by name (new ones
    /// added after this table's, in its order, `.missing` in earlier rows), this table's
    /// columns it lacks `.missing` in its rows. The table one reader of both would have built.
    public mutating func append(merging other: PropertyTable) {
        var filled = [Bool](repeating: false, count: columns.count + other.names.count)
        for (c, name) in other.names.enumerated() {
            let target = addColumn(name)
            columns[target].append(contentsOf: other.columns[c])
            filled[target] = true
        }
        for c in columns.indices where !filled[c] {
            columns[c].append(contentsOf: repeatElement(PropertyValue.missing, count: other.rowCount))
        }
        rowCount += other.rowCount
    }

    /// Removes every row, keeping the columns (and their memory).
    public mutating func removeAllRows() {
        for c in columns.indices { columns[c].removeAll(keepingCapacity: true) }
        rowCount = 0
    }

    public mutating func reserveCapacity(_ n: Int) {
        for c in columns.indices { columns[c].reserveCapacity(n) }
    }
}
