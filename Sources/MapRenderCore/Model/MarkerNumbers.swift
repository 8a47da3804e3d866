/// Numbers for the points (`--number-markers`): 1, 2, 3 ... in input order, or in the order of
/// a property (`--order-by`), written to their `marker-symbol` so that each marker shows its
/// number. With `--line-by`, each line's points are numbered from 1 (a round per vehicle).
public struct MarkerNumbers: Sendable, Equatable {
    /// The property ordering the points (numbers ascending, then text; ties and missing values
    /// keep input order); nil: input order.
    public var orderBy: String?
    /// Number the points of each value of this property apart (`--line-by`); nil: all as one.
    public var groupBy: String?

    public init(orderBy: String? = nil, groupBy: String? = nil) { self.orderBy = orderBy; self.groupBy = groupBy }

    /// Each point's number (1-based within its group); nil for a point without the group field.
    /// - Complexity: O(n log n) with an order, O(n) without.
    public func numbers(for points: PointSet) -> [Int?] {
        var out = [Int?](repeating: nil, count: points.count)
        let group = groupBy.flatMap { points.properties.columnIndex($0) }
        let groupByIDs = groupBy != nil && group == nil && !points.ids.isEmpty
        let order = orderBy.flatMap { points.properties.columnIndex($0) }
        var members: [String: [Int]] = [:]
        var keys: [String] = []
        for i in 0..<points.count {
            let key: String?
            if let g = group { key = points.properties.value(column: g, row: i).displayText } else if groupByIDs { key = points.ids[i].displayText } else { key = "" }
            guard let key else { continue }
            if members[key] == nil { keys.append(key) }
            members[key, default: []].append(i)
        }
        for key in keys {
            var m = members[key] ?? []
            if let o = order {
                m = m.enumerated().sorted { a, b in
                    let c = PointLines.compare(points.properties.value(column: o, row: a.element),
                                               points.properties.value(column: o, row: b.element))
                    return c != 0 ? c < 0 : a.offset < b.offset
                }.map(\.element)
            }
            for (n, i) in m.enumerated() { out[i] = n + 1 }
        }
        return out
    }

    /// The points with their numbers as `marker-symbol` (replacing any given).
    public func apply(to points: inout PointSet) {
        let numbers = numbers(for: points)
        let c = points.properties.addColumn(MarkerTextLayout.property)
        for i in 0..<points.count {
            points.properties.set(column: c, row: i, numbers[i].map { .string(String($0)) } ?? .missing)
        }
    }
}
