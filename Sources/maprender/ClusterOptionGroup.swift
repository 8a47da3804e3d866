import ArgumentParser
import MapRender

/// Clustering options (supercluster's), shared by `render` and `cluster`.
struct ClusterOptionGroup: ParsableArguments {
    @Option(name: .customLong("cluster-radius"), help: ArgumentHelp("Cluster radius in pixels at extent 512, as supercluster.", valueName: "px"))
    var radius = 40.0

    @Option(name: .customLong("min-points"), help: ArgumentHelp("Fewest points that make a cluster.", valueName: "n"))
    var minPoints = 2

    @Option(name: .customLong("max-zoom"), help: ArgumentHelp("Highest zoom: clusters form up to this zoom, and a fitted view never zooms further in.", valueName: "z"))
    var maxZoom = 16

    @Option(name: .customLong("cluster-sum"), help: ArgumentHelp("Give clusters a sum_FIELD property: the sum of FIELD over their points (repeatable).", valueName: "field"))
    var sum: [String] = []

    @Option(name: .customLong("cluster-max"), help: ArgumentHelp("Give clusters a max_FIELD property (repeatable).", valueName: "field"))
    var max: [String] = []

    @Option(name: .customLong("cluster-min"), help: ArgumentHelp("Give clusters a min_FIELD property (repeatable).", valueName: "field"))
    var min: [String] = []

    @Option(name: .customLong("cluster-mean"), help: ArgumentHelp("Give clusters a mean_FIELD property (repeatable).", valueName: "field"))
    var mean: [String] = []

    func validate() throws {
        if !(radius >= 0 && radius <= 1000) { throw ValidationError("--cluster-radius must be in 0...1000, got \(radius)") }
        if minPoints < 2 { throw ValidationError("--min-points must be at least 2, got \(minPoints)") }
        if !(0...24).contains(maxZoom) { throw ValidationError("--max-zoom must be in 0...24, got \(maxZoom)") }
    }

    var options: ClusterOptions { ClusterOptions(maxZoom: maxZoom, minPoints: minPoints, radius: radius) }

    var aggregates: [ClusterAggregate] {
        sum.map { .sum(field: $0) } + max.map { .max(field: $0) } + min.map { .min(field: $0) } + mean.map { .mean(field: $0) }
    }
}
