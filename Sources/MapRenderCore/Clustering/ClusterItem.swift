/// One thing to draw at a zoom: a cluster of points, or a point that stayed alone.
public struct ClusterItem: Sendable, Equatable {
    /// A cluster's `cluster_id`, or an unclustered point's index in the `PointSet`.
    ///
    /// Cluster ids are at least the feature count, so the two never collide (supercluster's
    /// `generateId` scheme). The same data and options give the same ids in supercluster.
    public var id: Int
    /// The point's index in the `PointSet`; nil for a cluster.
    public var pointIndex: Int?
    /// How many points it stands for (1 for a point).
    public var count: Int
    /// Position in Web Mercator world units [0, 1], as supercluster stores it: a cluster's
    /// count-weighted centroid; a point's projection rounded to `Float` precision.
    public var x: Double
    public var y: Double
    /// A cluster's centroid unprojected (supercluster's cluster geometry); a point's own coordinates.
    public var lon: Double
    public var lat: Double
    /// Aggregated values by `ClusterAggregate.propertyName`; a point's own value, if it has one.
    public var aggregates: [String: Double]

    public var isCluster: Bool { pointIndex == nil }

    /// supercluster's `point_count_abbreviated`: `999`, `1.5k`, `10k`, `1500k`.
    public var abbreviatedCount: String { ClusterItem.abbreviate(count) }

    public init(id: Int, pointIndex: Int?, count: Int, x: Double, y: Double,
                lon: Double, lat: Double, aggregates: [String: Double] = [:]) {
        self.id = id
        self.pointIndex = pointIndex
        self.count = count
        self.x = x
        self.y = y
        self.lon = lon
        self.lat = lat
        self.aggregates = aggregates
    }

    /// The count as supercluster abbreviates it: the number below 1000, tenths of thousands
    /// below 10,000 (`1.5k`, `2k`), whole thousands from there on (`10k`, `1500k`; no millions).
    public static func abbreviate(_ count: Int) -> String {
        if count >= 10_000 { return "\(Int(jsRound(Double(count) / 1000)))k" }
        if count >= 1_000 { return ClusterGeoJSON.number(jsRound(Double(count) / 100) / 10) + "k" }
        return String(count)
    }

    /// An aggregate (`sum_population`, a mean) as a bubble shows it: at most three digits and a
    /// unit, `k`, `M`, `B` or `T` (thousand, million, billion, trillion): below 100 of a unit with
    /// one decimal unless it is 0 (`1.2k`, `12.3M`, `1.2B`, `5M`), from 100 whole (`123k`,
    /// `100M`); below 1000 the rounded number itself (`999`). A value that rounds up to 1000 of a
    /// unit is written in the next (`999,960` is `1M`). Counts keep `abbreviate` (supercluster's
    /// `point_count_abbreviated`).
    public static func abbreviateAggregate(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "" : (value > 0 ? "∞" : "-∞") }
        let sign = value < 0 ? "-" : ""
        var v = abs(value)
        if jsRound(v) < 1000 { return sign + String(Int(jsRound(v))) }
        let units = ["k", "M", "B", "T"]
        var u = 0
        v /= 1000
        while true {
            // Rounded as it will be written: one decimal below 100, whole from 100.
            let written = v < 99.95 ? jsRound(v * 10) / 10 : jsRound(v)
            if written >= 1000 && u + 1 < units.count { v /= 1000; u += 1; continue }
            let text = written < 100 && written != written.rounded(.down)
                ? String(format: "%.1f", written) : String(Int(written))
            return sign + text + units[u]
        }
    }
}

/// JavaScript's `Math.round`: the nearest integer, halves rounded up (towards +∞).
@inline(__always)
func jsRound(_ v: Double) -> Double {
    let f = v.rounded(.down)
    return v - f >= 0.5 ? f + 1 : f
}
