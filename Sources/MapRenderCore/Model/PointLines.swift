/// Points joined into lines (`--line-by FIELD`): one path per value of a property, through the
/// points that have it, in input order or by another property (`--order-by`). GPS tracks by
/// device, a delivery round by stop number.
public struct PointLines: Sendable, Equatable {
    /// The property whose value names each line.
    public var field: String
    /// The property that orders each line's points (numbers ascending before text; ties and
    /// missing values keep input order); nil: input order.
    public var orderBy: String?

    public init(field: String, orderBy: String? = nil) { self.field = field; self.orderBy = orderBy }

    /// The lines, in the order their first point comes in the input, each with the properties
    /// of its first point (so a per-line `stroke` simplestyle colour applies). Points without the
    /// field, and values held by a single point, make no line. A field that is no property but
    /// the points have ids (a CSV column named `id`, GeoJSON feature ids) groups by the ids.
    /// - Complexity: O(n log n) for the order, O(n) otherwise; one pass over the points.
    public func lines(from points: PointSet) -> ShapeSet {
        var out = ShapeSet()
        let column = points.properties.columnIndex(field)
        guard column != nil || !points.ids.isEmpty else { return out }
        let order = orderBy.flatMap { points.properties.columnIndex($0) }
        // Group point indexes by the field's text, keeping first-seen order.
        var groupOf: [String: Int] = [:]
        var groups: [[Int]] = [], keys: [String] = []
        for i in 0..<points.count {
            let value = column.map { points.properties.value(column: $0, row: i) } ?? points.ids[i]
            guard let key = value.displayText else { continue }
            if let g = groupOf[key] { groups[g].append(i) } else {
                groupOf[key] = groups.count
                groups.append([i])
                keys.append(key)
            }
        }
        for c in points.properties.names { _ = out.properties.addColumn(c) }
        // Grouped by the ids: each line also has the id as the field's value (what names it).
        let idColumn = column == nil ? out.properties.addColumn(field) : nil
        for (g, var members) in groups.enumerated() where members.count >= 2 {
            if let o = order {
                members = members.enumerated().sorted { a, b in
                    let c = Self.compare(points.properties.value(column: o, row: a.element),
                                         points.properties.value(column: o, row: b.element))
                    return c != 0 ? c < 0 : a.offset < b.offset
                }.map(\.element)
            }
            var coords: [Double] = []
            coords.reserveCapacity(2 * members.count)
            for i in members { coords.append(points.lon[i]); coords.append(points.lat[i]) }
            let first = members[0]
            let row = out.properties.rowCount
            out.properties.appendRow(points.properties.names.indices.map { ($0, points.properties.value(column: $0, row: first)) }
                                     + (idColumn.map { [($0, PropertyValue.string(keys[g]))] } ?? []))
            out.add(kind: .line, rings: [coords], feature: first, row: row)
        }
        return out
    }

    /// Numbers ascending, then text, then anything else (missing last).
    static func compare(_ a: PropertyValue, _ b: PropertyValue) -> Int {
        func rank(_ v: PropertyValue) -> Int {
            switch v {
            case .number: return 0
            case .string: return 1
            case .missing, .null: return 3
            default: return 2
            }
        }
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        default: return 0
        }
    }
}
