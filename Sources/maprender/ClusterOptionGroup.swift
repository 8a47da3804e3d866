import ArgumentParser
import MapRender

/// Clustering options (supercluster's), shared by `render`, `animate` and `cluster`.
/// Help, checks and meaning of each option come from `RenderOptionTable.clustering`.
struct ClusterOptionGroup: TableOptionGroup {
    @Option(parsing: .unconditional, help: .table("cluster-radius")) var clusterRadius: String?
    @Option(parsing: .unconditional, help: .table("min-points")) var minPoints: String?
    @Option(parsing: .unconditional, help: .table("max-zoom")) var maxZoom: String?
    @Option(help: .table("cluster-sum")) var clusterSum: [String] = []
    @Option(help: .table("cluster-max")) var clusterMax: [String] = []
    @Option(help: .table("cluster-min")) var clusterMin: [String] = []
    @Option(help: .table("cluster-mean")) var clusterMean: [String] = []

    func validate() throws { try validateValues() }
}
