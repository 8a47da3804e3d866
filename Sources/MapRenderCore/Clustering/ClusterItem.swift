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
}

/// JavaScript's `Math.round`: the nearest integer, halves rounded up (towards +∞).
@inline(__always)
func jsRound(_ v: Double) -> Double {
    let f = v.rounded(.down)
    return v - f >= 0.5 ? f + 1 : f
}
