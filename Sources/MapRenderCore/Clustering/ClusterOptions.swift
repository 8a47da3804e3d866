/// How points are clustered: supercluster's options, with its defaults.
///
/// Zoom follows MapLibre GL and supercluster: at zoom z the world is `extent · 2^z` pixels wide,
/// so two items are merged at zoom z when they lie within `radius / (extent · 2^z)` world units.
public struct ClusterOptions: Sendable, Equatable {
    /// Lowest zoom that clusters are made for; queries below it get this zoom's clusters.
    public var minZoom = 0
    /// Highest zoom that clusters are made for; above it every point stands alone. At most 30.
    public var maxZoom = 16
    /// Fewest points that make a cluster (fewer neighbours stay separate points).
    public var minPoints = 2
    /// Cluster radius, in pixels at `extent`.
    public var radius = 40.0
    /// Tile extent, in pixels (the radius is relative to it).
    public var extent = 512.0
    /// Points per KD-tree leaf; affects speed, and the order items come out in (as in kdbush).
    public var nodeSize = 64

    public init(minZoom: Int = 0, maxZoom: Int = 16, minPoints: Int = 2,
                radius: Double = 40, extent: Double = 512, nodeSize: Int = 64) {
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.minPoints = minPoints
        self.radius = radius
        self.extent = extent
        self.nodeSize = nodeSize
    }

    /// The merge distance at a zoom, in Mercator world units ([0, 1] across the world).
    public func radius(atZoom zoom: Int) -> Double {
        radius / (extent * pow2(zoom))
    }
}

/// A numeric property summarised over the points of each cluster (supercluster's map/reduce).
///
/// A cluster carries the reduced value under `propertyName` (`sum_population`, `max_population`, ...);
/// an unclustered point keeps its own properties (and its own value in `ClusterItem.aggregates`).
/// Values are read with `PropertyValue.numberValue` (numbers, numeric strings, booleans as 0/1);
/// points without a finite value are left out, and a cluster none of whose points has one
/// carries no value for that aggregate. When every point has a value, the result is the one
/// supercluster gives for `map: p => ({v: p.field})`, `reduce: (a, b) => { a.v += b.v }`
/// (or `Math.max`, `Math.min`), folded in the same order. `mean` is the sum over the count of
/// points that have a value.
public enum ClusterAggregate: Sendable, Hashable {
    case sum(field: String)
    case max(field: String)
    case min(field: String)
    case mean(field: String)

    /// The property it reads.
    public var field: String {
        switch self {
        case .sum(let f), .max(let f), .min(let f), .mean(let f): return f
        }
    }

    /// The property a cluster carries the result in: `<operation>_<field>`.
    public var propertyName: String {
        switch self {
        case .sum(let f): return "sum_" + f
        case .max(let f): return "max_" + f
        case .min(let f): return "min_" + f
        case .mean(let f): return "mean_" + f
        }
    }
}

/// 2^z for an integer zoom, exactly (as JavaScript's `Math.pow(2, z)`).
@inline(__always)
func pow2(_ z: Int) -> Double {
    z >= 0 ? Double(sign: .plus, exponent: z, significand: 1) : 1 / Double(sign: .plus, exponent: -z, significand: 1)
}
