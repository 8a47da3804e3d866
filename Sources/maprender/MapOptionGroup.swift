import ArgumentParser
import MapRender

/// What a map looks like and shows: size, style, view, basemap, labels, clustering, decorations.
/// Shared by `render` and `animate`. Help, checks and meaning of each option come from
/// `RenderOptionTable.map` (see `TableOptionGroup` for how a line here names its entry).
/// Options whose values may start with '-' (`--bbox -10,35,30,60`) read the next word whatever
/// it is, so the table says what is wrong with `--size -5x10`.
struct MapOptionGroup: TableOptionGroup {
    @Option(parsing: .unconditional, help: .table("size")) var size: String?
    @Option(parsing: .unconditional, help: .table("scale")) var scale: String?
    @Option(help: .table("style")) var style: String?
    @Option(help: .table("background")) var background: String?
    @Option(help: .table("marker")) var marker: String?
    @Option(parsing: .unconditional, help: .table("marker-size")) var markerSize: String?
    @Option(help: .table("marker-icon")) var markerIcon: String?
    @Option(parsing: .unconditional, help: .table("center")) var center: String?
    @Option(parsing: .unconditional, help: .table("zoom")) var zoom: String?
    @Option(parsing: .unconditional, help: .table("bbox")) var bbox: String?

    @OptionGroup(title: "Clustering") var cluster: ClusterOptionGroup
    @OptionGroup(title: "Raster tiles") var tiles: TileOptionGroup

    @Flag(help: .table("no-cluster")) var noCluster = false
    @Option(parsing: .unconditional, help: .table("spread-tolerance")) var spreadTolerance: String?
    @Option(parsing: .unconditional, help: .table("spread-max")) var spreadMax: String?
    @Option(parsing: .unconditional, help: .table("padding")) var padding: String?
    @Option(help: .table("basemap")) var basemap: [String] = []
    @Option(help: .table("basemap-style")) var basemapStyle: String?
    @Flag(help: .table("no-basemap")) var noBasemap = false
    @Option(help: .table("attribution")) var attribution: String?
    @Option(help: .table("filter")) var filter: String?
    @Option(help: .table("label")) var label: String?
    @Option(help: .table("label-priority")) var labelPriority: String?
    @Option(parsing: .unconditional, help: .table("text-padding")) var textPadding: String?
    @Option(help: .table("label-style")) var labelStyle: String?
    @Flag(help: .table("allow-overlap")) var allowOverlap = false
    @Flag(help: .table("scale-bar")) var scaleBar = false
    @Flag(help: .table("legend")) var legend = false
    @Option(parsing: .unconditional, help: .table("text-scale")) var textScale: String?
    @Flag(help: .table("allow-empty")) var allowEmpty = false
    @Flag(help: .table("strict")) var strict = false
    @Option(parsing: .unconditional, help: .table("quality")) var quality: String?
    @Flag(help: .table("system-fonts")) var systemFonts = false

    func validate() throws { try validateValues() }
}
