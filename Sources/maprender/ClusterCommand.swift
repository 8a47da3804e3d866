import ArgumentParser
import Foundation
import MapRender

struct Cluster: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Print the clusters at one zoom as GeoJSON, as supercluster's getClusters returns them.",
        discussion: """
        Clusters have the properties cluster: true, cluster_id, point_count and point_count_abbreviated \
        (plus sum_FIELD etc. from --cluster-sum ...); unclustered points are their original features.
        Example: maprender cluster places.geojson --zoom 2 --bbox=-20,30,40,60
        """
    )

    @Argument(help: ArgumentHelp("A GeoJSON or CSV file ('-' reads standard input).", valueName: "input"))
    var file: String

    @Option(help: ArgumentHelp("Zoom level (floored, as supercluster does).", valueName: "z"))
    var zoom: Double

    @Option(parsing: .unconditional, help: ArgumentHelp("Only clusters in this box (W,S,E,N; west > east crosses 180°). Default: the world.", valueName: "W,S,E,N"))
    var bbox: String?

    @OptionGroup(title: "Clustering")
    var cluster: ClusterOptionGroup

    @OptionGroup(title: "Input")
    var input: InputOptionGroup

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    func validate() throws {
        if !(0...30).contains(zoom) { throw ValidationError("--zoom must be in 0...30, got \(zoom)") }
        if let b = bbox {
            do { _ = try RenderOptionTable.bbox(b) } catch let e as MapRenderError { throw ValidationError("--bbox: \(e.message)") }
        }
    }

    func run() throws {
        try runReportingErrors {
            let loaded = try input.read(file)
            let settings = try cluster.request()
            let options = settings.clustering ?? ClusterOptions()
            let index = ClusterIndex(points: loaded.points, options: options, aggregates: settings.aggregates)
            let items: [ClusterItem]
            if let b = try bbox.map(RenderOptionTable.bbox) {
                items = index.clusters(in: b, zoom: zoom)
            } else {
                items = index.clusters(zoom: zoom)
            }
            var bytes = ClusterGeoJSON.featureCollectionBytes(items: items, points: loaded.points, aggregates: settings.aggregates)
            bytes.append(UInt8(ascii: "\n"))
            try AtomicFile.write(Data(bytes), to: output ?? "-")
        }
    }
}
