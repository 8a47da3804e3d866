import MapRenderCore
import MapRenderTiles

/// The pipeline's hook for raster tile basemaps (`--tiles`): after the view, before layout, which
/// draws them as the map's raster layer. (`--integer-zoom` is a constraint of the view choice:
/// `PlanOptions.integerZoomScale`.)
enum TileStage {
    /// The view's tiles, through the process-wide service for these options (a batch shares it);
    /// nil without `--tiles`. Missing tiles are a warning, or an error with `--tiles-strict`;
    /// failures such that no tile arrived at all are an error (exit 69: the map would have no
    /// basemap) unless `--allow-missing-tiles`.
    static func run(_ r: RenderRequest, viewport: Viewport) throws -> TileBasemap? {
        guard !r.tiles.sources.isEmpty else { return nil }
        let tiles = try TileService.shared(for: options(r)).basemap(viewport: viewport, scale: r.scale, sources: r.tiles.sources,
                                                                    decodedLimit: decodedLimit(r))
        if r.tiles.strict, let p = tiles.problem { throw MapRenderError(.unavailable, p + " (--tiles-strict)") }
        let s = tiles.stats
        if !r.tiles.allowMissing, s.failed > 0, s.fetched + s.fromCache == 0, let p = tiles.problem {
            throw MapRenderError(.unavailable, p + "; no tile arrived (--allow-missing-tiles draws the map without them)")
        }
        return tiles
    }

    /// The bytes `--max-memory` leaves for the map's decoded tiles: the limit less the render's
    /// own estimate (image, GeoJSON, CSV rows; `RenderBounds`).
    static func decodedLimit(_ r: RenderRequest) -> Int {
        let left = Double(r.maxMemory) - RenderBounds.estimate(r).total
        return left > 0 ? Int(min(left, Double(Int.max / 2))) : 0
    }

    /// Starts what the tile stage will need from the network (see `TileService.warmUp`) while
    /// the input is read; nothing without `--tiles` or with invalid tile options (`run` reports those).
    static func warmUp(_ r: RenderRequest) {
        guard !r.tiles.sources.isEmpty, let o = try? options(r) else { return }
        TileService.shared(for: o).warmUp(sources: r.tiles.sources)
    }

    private static func options(_ r: RenderRequest) throws -> TileOptions {
        var options = r.tiles
        options.product = MapRenderVersion.userAgent
        try options.validate()
        return options
    }

    /// The attribution line: the user's, then each tile source's, joined with " | ".
    static func layout(_ options: LayoutOptions, tiles: TileBasemap?) -> LayoutOptions {
        guard let t = tiles, !t.attributions.isEmpty else { return options }
        var o = options
        o.attribution = ([options.attribution].compactMap { $0 }.filter { !$0.isEmpty } + t.attributions).joined(separator: " | ")
        return o
    }
}
