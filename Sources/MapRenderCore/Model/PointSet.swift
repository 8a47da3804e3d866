/// Points as flat columns: WGS84 longitude/latitude, optional ids and properties.
///
/// No object per point: a million points are a few flat arrays (see STYLE.md, supercluster).
/// Longitudes are normalised to [-180, 180] by the readers.
public struct PointSet: Sendable {
    public var lon: [Double] = []
    public var lat: [Double] = []
    /// One id per point (`.missing` when the feature had none); empty when no point has an id.
    public var ids = IDColumn()
    public var properties = PropertyTable()

    public init() {}

    public var count: Int { lon.count }

    public mutating func reserveCapacity(_ n: Int) {
        lon.reserveCapacity(n)
        lat.reserveCapacity(n)
    }

    public func id(at i: Int) -> PropertyValue { ids.isEmpty ? .missing : ids[i] }

    /// A new set with only the given points, in that order.
    public func selecting(_ rows: [Int]) -> PointSet {
        var s = PointSet()
        s.lon = rows.map { lon[$0] }
        s.lat = rows.map { lat[$0] }
        s.ids = ids.isEmpty ? [] : IDColumn(rows.lazy.map { ids[$0] })
        s.properties = properties.selecting(rows: rows)
        return s
    }

    /// Appends all points of another set (properties merged by name).
    public mutating func append(contentsOf other: PointSet) {
        let before = count
        if !other.ids.isEmpty || !ids.isEmpty {
            if ids.isEmpty { ids = IDColumn(repeating: .missing, count: before) }
            if other.ids.isEmpty {
                ids.append(contentsOf: [PropertyValue](repeating: .missing, count: other.count))
            } else {
                ids.append(contentsOf: other.ids)
            }
        }
        lon.append(contentsOf: other.lon)
        lat.append(contentsOf: other.lat)
        let map = other.properties.names.map { properties.addColumn($0) }
        for r in 0..<other.count {
            var vals: [(Int, PropertyValue)] = []
            for (c, target) in map.enumerated() { vals.append((target, other.properties.value(column: c, row: r))) }
            properties.appendRow(vals)
        }
    }
}
