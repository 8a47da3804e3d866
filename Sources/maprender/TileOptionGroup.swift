import ArgumentParser
import MapRender

/// Raster tile options, shared by `render` and `animate`. Help, checks and meaning of each option
/// come from `RenderOptionTable.tiles`.
struct TileOptionGroup: TableOptionGroup {
    @Option(help: .table("tiles")) var tiles: [String] = []
    @Option(parsing: .unconditional, help: .table("tile-size")) var tileSize: String?
    @Option(help: .table("tiles-subdomains")) var tilesSubdomains: String?
    @Option(help: .table("tiles-attribution")) var tilesAttribution: String?
    @Flag(help: .table("integer-zoom")) var integerZoom = false
    @Option(help: .table("tile-cache")) var tileCache: String?
    @Option(help: .table("user-agent")) var userAgent: String?
    @Option(parsing: .unconditional, help: .table("tile-connections")) var tileConnections: String?
    @Flag(help: .table("offline")) var offline = false
    @Option(parsing: .unconditional, help: .table("tiles-timeout")) var tilesTimeout: String?
    @Option(parsing: .unconditional, help: .table("tile-cache-max")) var tileCacheMax: String?
    @Flag(help: .table("allow-missing-tiles")) var allowMissingTiles = false
    @Flag(help: .table("tiles-strict")) var tilesStrict = false

    func validate() throws { try validateValues() }
}
