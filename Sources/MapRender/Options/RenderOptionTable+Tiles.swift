import MapRenderCore
import MapRenderTiles

extension RenderOptionTable {
    /// Raster tile basemaps (`--tiles`) and how they are fetched.
    public static let tiles: [RenderOption] = [
        RenderOption("tiles", .list(valueName: "source"), request: .named,
                     "Raster tiles under the map (repeatable, drawn in order): a preset (\(TilePreset.all.map(\.name).joined(separator: ", "))), a URL template with {z}/{x}/{y} ({s}, {r}, {-y}), a z/x/y tile folder, an .mbtiles or .pmtiles file, or an https://....pmtiles URL.") { v, s, c in
            // A request names a source the server was started with; in a manifest a folder or
            // file resolves against the manifest's folder, as every path there does (presets and
            // URLs stay as they are).
            s.base.tiles.sources = try v.strings().map(c.tileSource).map { t in
                let lower = t.lowercased()
                let isPath = TilePreset.named(t) == nil && !lower.hasPrefix("http://") && !lower.hasPrefix("https://")
                return isPath ? c.files.resolve(t) : t
            }
            for t in s.base.tiles.sources { _ = try TileSourceSpec.parse(t, options: s.base.tiles) }
        },
        RenderOption("tile-size", .value(valueName: "px"),
                     "Tile size of URL templates, tile folders and files: 256 (when not given) or 512; presets know their own.") { v, s, _ in
            let n = try v.integer(256...512)
            guard n == 256 || n == 512 else { throw v.fail("--tile-size must be 256 or 512, got \(n)") }
            s.base.tiles.tileSize = n
        },
        RenderOption("tiles-subdomains", .value(valueName: "letters"),
                     "Values of {s} in a URL template, one per character (default abc).") { v, s, _ in
            let t = try v.string()
            guard !t.isEmpty else { throw v.fail("--tiles-subdomains must not be empty") }
            s.base.tiles.subdomains = t
        },
        RenderOption("tiles-attribution", .value(valueName: "text"),
                     "Attribution of the tiles, replacing the sources' own (drawn after --attribution, joined with \" | \").") { v, s, _ in
            s.base.tiles.attribution = try v.string()
        },
        RenderOption("integer-zoom", .flag,
                     "Snap the fitted view to a whole zoom so tiles are drawn pixel for pixel, not resampled.") { v, s, _ in
            s.base.tiles.integerZoom = try v.bool()
        },
        RenderOption("tile-cache", .value(valueName: "dir"), request: .file,
                     "Folder of the tile cache (default $XDG_CACHE_HOME/maprender/tiles, else ~/.cache/maprender/tiles); may be shared.") { v, s, c in
            s.base.tiles.cacheDirectory = c.files.resolve(try v.string())
        },
        RenderOption("user-agent", .value(valueName: "text"), request: .server,
                     "Added to the User-Agent sent to tile servers (maprender/VERSION): a contact, e.g. 'you@example.org'.") { v, s, _ in
            s.base.tiles.userAgent = try v.string()
        },
        RenderOption("tile-connections", .value(valueName: "n"), default: "2", request: .server,
                     "Most requests in flight to one tile server host, 1...16.") { v, s, _ in
            s.base.tiles.connectionsPerHost = try v.integer(1...16)
        },
        RenderOption("offline", .flag, request: .server, "Take tiles from the cache only; never ask a server.") { v, s, _ in
            s.base.tiles.offline = try v.bool()
        },
        RenderOption("tiles-timeout", .value(valueName: "seconds"), default: "20", request: .server,
                     "Seconds the tiles of one map may take in all; tiles still pending then count as failed and the map is drawn with what arrived (a warning).") { v, s, _ in
            s.base.tiles.mapTimeout = try v.number(0...86400, openLow: true)
        },
        RenderOption("tile-cache-max", .value(valueName: "MB"), request: .server,
                     "Most megabytes the tile cache folder may hold; the least recently used tiles are removed past it (default: no bound).") { v, s, _ in
            let mb = try v.integer(0...1_000_000)
            s.base.tiles.cacheMaxBytes = mb << 20
        },
        RenderOption("allow-missing-tiles", .flag,
                     "Draw the map even when no tile arrived (every tile failed); without it that is an error (exit 69).") { v, s, _ in
            s.base.tiles.allowMissing = try v.bool()
        },
        RenderOption("tiles-strict", .flag,
                     "A missing or failed tile is an error (exit 69), not a warning.") { v, s, _ in
            s.base.tiles.strict = try v.bool()
        },
    ]
}
