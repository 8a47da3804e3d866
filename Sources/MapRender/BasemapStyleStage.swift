import Foundation
import MapRenderCore
import MapRenderTiles

/// What `--basemap-style` did, for `--summary`.
public struct BasemapStyleSummary: Sendable, Codable, Equatable {
    /// The style's file.
    public var style: String
    /// Vector tiles: requested, fromCache, fetched, missing, failed (all vector sources).
    public var tiles: TileStats
    /// The zoom of the vector tiles used (past a source's maximum zoom they are overzoomed).
    public var tileZoom: Int?
    /// Features decoded from the tiles.
    public var features: Int
    /// Paint and layout properties (and layer types) of the style that are not drawn, with the
    /// layers using them.
    public var unsupported: [String]
}

/// The pipeline's hook for `--basemap-style`: after the view, before layout. It fetches each
/// vector source's tiles for the view (through the tile layer: files, HTTP, disk cache),
/// decodes them, reads GeoJSON sources and raster sources, and gives the style's layers as map
/// layers, drawn under the data.
enum BasemapStyleStage {
    struct Output {
        var layers: [MapLayer]
        var background: RGBA?
        var warnings: [String]
        var summary: BasemapStyleSummary
        var attributions: [String]
    }

    /// The tile zoom of a vector source for a view: MapLibre's for 512-px tiles (the view's zoom
    /// rounded down, 256-px tiles one more), clamped to the source's zooms.
    static func tileZoom(viewZoom: Double, tileSize: Int, minZoom: Int, maxZoom: Int) -> Int {
        let z = Int((viewZoom + log2(512 / Double(max(tileSize, 1))) + 1e-9).rounded(.down))
        return max(minZoom, min(maxZoom, max(0, z)))
    }

    /// Puts the style's layers into a map's `layers` (over the raster tiles, `overTiles`; under the
    /// `--basemap` files and the data), its background into `style` (unless `--background` was
    /// given) and its sources' attributions after the map's: for a still map and for each
    /// frame of an animation alike.
    static func apply(_ s: Output, request r: RenderRequest, overTiles: Bool, layers: inout [MapLayer], style: inout Style,
                      options: inout LayoutOptions) {
        if let bg = s.background, !r.backgroundGiven { style.background = bg }
        layers.insert(contentsOf: s.layers, at: overTiles ? 1 : 0)
        if !s.attributions.isEmpty, r.tiles.attribution == nil {
            options.attribution = ([options.attribution].compactMap { $0 }.filter { !$0.isEmpty } + s.attributions).joined(separator: " | ")
        }
    }

    /// The TileJSON document at `location` (a path, or an http(s) URL fetched through the tile
    /// layer), read.
    static func tileJSON(_ location: String, service: TileService) throws -> TileJSON {
        let data: Data
        if location.lowercased().hasPrefix("http://") || location.lowercased().hasPrefix("https://") {
            data = try service.document(location)
        } else {
            let size = ((try? FileManager.default.attributesOfItem(atPath: location))?[.size] as? NSNumber)?.intValue ?? 0
            guard size <= TileJSON.maxBytes, let d = FileManager.default.contents(atPath: location) else {
                throw MapRenderError(.inputUnreadable, size > TileJSON.maxBytes ? "TileJSON \(location): larger than \(TileJSON.maxBytes >> 20) MiB"
                                                                                  : "cannot read TileJSON \(location): no such file or not readable")
            }
            data = d
        }
        return try TileJSON.parse(data, location: location)
    }

    nonisolated(unsafe) private static var sprites: [String: Sprite] = [:]

    /// The sprite at `base`, a path or an http(s) URL (`base.json` and `base.png`; `base@2x.*` at
    /// a scale of 2 or more, when there), read once per process. A remote one is fetched through
    /// the tile layer's client (`service`: disk cache, polite HTTP, `--offline`); its @2x sheets
    /// are tried first at scale 2 and the plain ones used when they are not found.
    static func loadSprite(_ base: String, scale: Double, service: TileService? = nil) throws -> Sprite {
        let remote = base.lowercased().hasPrefix("http://") || base.lowercased().hasPrefix("https://")
        var names = [base]
        if scale >= 2 && (remote || FileManager.default.fileExists(atPath: base + "@2x.json")) { names.insert(base + "@2x", at: 0) }
        lock.lock()
        if let s = sprites[names[0]] { lock.unlock(); return s }   // kept under the sheets preferred
        lock.unlock()
        func read(_ path: String, limit: Int) throws -> Data {
            if remote {
                guard let service else { throw MapRenderError(.unavailable, "sprite \(path): no HTTP client") }
                let d = try service.document(path)
                guard d.count <= limit else { throw MapRenderError(.inputMalformed, "sprite \(path): larger than \(limit >> 20) MiB") }
                return d
            }
            let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
            guard size <= limit, let d = FileManager.default.contents(atPath: path) else {
                throw MapRenderError(.inputUnreadable, size > limit ? "sprite \(path): larger than \(limit >> 20) MiB"
                                                                    : "cannot read sprite \(path): no such file or not readable")
            }
            return d
        }
        var firstError: Error?
        for name in names {
            do {
                let index = try read(name + ".json", limit: 8 << 20)
                let png = try PNGCodec.decode(data: try read(name + ".png", limit: 64 << 20), name: name + ".png")
                let s = try Sprite.parse(index: index, sheet: (png.width, png.height, png.pixels), name: name)
                lock.lock(); sprites[names[0]] = s; lock.unlock()
                return s
            } catch let e as MapRenderError where remote && name != base && e.kind == .inputUnreadable {
                firstError = firstError ?? e   // no @2x on the server: the plain sheets
            }
        }
        throw firstError ?? MapRenderError(.inputUnreadable, "sprite \(base): not read")
    }

    /// Forgets the sprites read (tests: the next map reads them as a new process would).
    static func forgetSprites() {
        lock.lock(); sprites = [:]; lock.unlock()
    }

    /// The style's sprites as one, each image under the name the style uses for it (`id:name`
    /// for an array's sprites but `default`), when a layer drawn at `zoom` uses images; a sprite
    /// that cannot be had is a warning naming the style and the sprite, and its images are left out.
    static func sprite(of style: MapLibreStyle, zoom: Double, scale: Double, service: TileService,
                       warnings: inout [String]) -> Sprite? {
        guard !style.sprites.isEmpty, style.usesImages(atZoom: zoom) else { return nil }
        var merged = Sprite()
        var any = false
        for src in style.sprites {
            do {
                let one = try loadSprite(src.location, scale: scale, service: src.isRemote ? service : nil)
                for (name, image) in one.icons { merged.icons[src.imageName(name)] = image }
                any = true
            } catch let e as MapRenderError {
                let which = style.sprites.count > 1 || src.id != "default" ? "sprite \"\(src.id)\"" : "sprite"
                warnings.append("basemap style \(style.file): \(which): \(e.message); its icons and patterns are not drawn")
            } catch {
                warnings.append("basemap style \(style.file): sprite \"\(src.id)\": \(error); its icons and patterns are not drawn")
            }
        }
        return any ? merged : nil
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var announced = Set<String>()

    /// The style's unsupported properties as one warning, the first time a process draws it (a
    /// batch of many maps with one style says it once).
    static func unsupportedWarning(_ style: MapLibreStyle) -> String? {
        guard !style.unsupported.isEmpty else { return nil }
        lock.lock(); defer { lock.unlock() }
        guard announced.insert(style.file).inserted else { return nil }
        return "basemap style \(style.file): not drawn: " + style.unsupportedLines.joined(separator: "; ")
    }

    static func run(_ r: RenderRequest, viewport v: Viewport) throws -> Output? {
        guard let style = r.basemapStyle else { return nil }
        var warnings: [String] = unsupportedWarning(style).map { [$0] } ?? []
        var summary = BasemapStyleSummary(style: style.file, tiles: TileStats(), tileZoom: nil, features: 0,
                                          unsupported: style.unsupportedLines)
        var attributions: [String] = []
        var sources: [String: StyledBasemap.SourceData] = [:]
        let used = Set(style.layers.filter { $0.style.shows(atZoom: v.zoom) }.compactMap(\.source))
        var tileOptions = r.tiles
        tileOptions.sources = []
        tileOptions.product = MapRenderVersion.userAgent
        try tileOptions.validate()
        let service = TileService.shared(for: tileOptions)
        // What --max-memory leaves for tiles, in equal parts to the sources that fetch tiles, then
        // in equal shares to each source's tiles (inflated bytes and decoded vertices for vector
        // tiles, decoded pixels for raster ones), as `TileStage` does for --tiles.
        let tileSources = style.sources.filter { used.contains($0.id) && $0.tiles != nil }.count
        let part = TileStage.decodedLimit(r) / max(1, tileSources)
        for source in style.sources where used.contains(source.id) {
            let name = "basemap style: source \"\(source.id)\""
            switch source.kind {
            case .vector:
                var source = source
                if let doc = source.tileJSON {
                    // MapLibre takes the document's tiles, zooms, bounds and attribution.
                    let t: TileJSON
                    do { t = try tileJSON(doc, service: service) } catch let e as MapRenderError {
                        throw MapRenderError(e.kind, "\(name): \(e.message)")
                    }
                    source.tiles = t.tiles; source.minzoom = t.minzoom; source.maxzoom = t.maxzoom
                    source.bounds = t.bounds; source.attribution = t.attribution ?? source.attribution
                }
                guard let spec = source.tiles else { continue }
                let info: (minZoom: Int, maxZoom: Int, attribution: String?)
                do { info = try service.sourceInfo(spec) } catch let e as MapRenderError {
                    throw MapRenderError(e.kind, "\(name): \(e.message)")
                }
                let lo = max(info.minZoom, source.minzoom), hi = min(info.maxZoom, source.maxzoom)
                let z = tileZoom(viewZoom: v.zoom, tileSize: source.tileSize, minZoom: lo, maxZoom: max(lo, hi))
                summary.tileZoom = summary.tileZoom.map { max($0, z) } ?? z
                let cover = TileCoverage.cover(v, zoom: z, minZoom: lo, maxZoom: max(lo, hi), scale: r.scale)
                let bounds = TileJSON(tiles: spec, bounds: source.bounds)
                let tiles = Array(Set(cover.placements.map(\.tile))).filter(bounds.covers).sorted()
                let budget = DecodeBudget(limit: part, tiles: tiles.count)
                let raw = try service.rawTiles(spec, tiles: tiles, budget: budget)
                summary.tiles.requested += raw.stats.requested; summary.tiles.fromCache += raw.stats.fromCache
                summary.tiles.fetched += raw.stats.fetched; summary.tiles.missing += raw.stats.missing
                summary.tiles.failed += raw.stats.failed
                if let p = raw.problem {
                    if r.tiles.strict { throw MapRenderError(.unavailable, "\(name): \(p) (--tiles-strict)") }
                    warnings.append("\(name): \(raw.stats.failed) of \(raw.stats.requested) tiles failed (first: \(p))")
                }
                let wanted = style.sourceLayers(of: source.id)
                var layers: [String: VectorLayerData] = [:]
                for (t, bytes) in raw.tiles {
                    // Each tile on its own, then appended: a malformed tile adds nothing.
                    var decoded: [String: VectorLayerData] = [:]
                    do {
                        let vertices = max(0, budget.share - bytes.count) / MVTDecoder.bytesPerVertex
                        try MVTDecoder.decode(bytes, tile: t, layers: wanted, into: &decoded, vertexLimit: vertices)
                        for k in decoded.keys.sorted() {
                            if layers[k] == nil { layers[k] = decoded[k]! } else { layers[k]!.append(contentsOf: decoded[k]!) }
                        }
                    } catch let e as VectorTileError where e.overLimit && budget.share / MVTDecoder.bytesPerVertex < MVTDecoder.vertexLimit {
                        // Counted as failed, as a raster tile refused from its header is.
                        budget.refuse()
                        summary.tiles.failed += 1
                        if raw.cached.contains(t) { summary.tiles.fromCache -= 1 } else { summary.tiles.fetched -= 1 }
                    } catch {
                        warnings.append("\(name): tile \(t) is malformed (\(error)); it is left out")
                    }
                }
                if budget.refused > 0 {
                    warnings.append("\(name): \(budget.refused) of \(tiles.count) tiles not decoded: each tile may take "
                        + "\(DecodeBudget.mb(budget.share)), its share of the \(DecodeBudget.mb(part)) that --max-memory leaves for this source's tiles")
                }
                for (k, d) in layers {
                    layers[k] = d.finished()
                    summary.features += d.featureCount
                }
                sources[source.id] = .vector(layers)
                if let a = source.attribution ?? info.attribution, !attributions.contains(a) { attributions.append(a) }
            case .geojson:
                do {
                    if let p = source.geojsonPath {
                        let (shapes, points) = try BasemapCache.features(path: p)
                        sources[source.id] = .shapes(shapes, points: points)
                    } else if let d = source.geojsonData {
                        let (shapes, points) = try ShapeReader.readFeatures(data: d, name: "\(style.file): sources.\(source.id).data")
                        sources[source.id] = .shapes(shapes, points: points)
                    }
                } catch let e as MapRenderError {
                    throw MapRenderError(e.kind, "\(name): \(e.message)")
                }
                if let a = source.attribution, !attributions.contains(a) { attributions.append(a) }
            case .raster:
                guard let spec = source.tiles else { continue }
                var o = tileOptions
                if source.tileSize != 512 { o.tileSize = source.tileSize }
                let t = try TileService.shared(for: o).basemap(viewport: v, scale: r.scale, sources: [spec], decodedLimit: part)
                warnings += t.warnings.map { "\(name): \($0)" }
                sources[source.id] = .raster(t.marks)
                for a in t.attributions where !attributions.contains(a) { attributions.append(a) }
            }
        }
        let sprite = Self.sprite(of: style, zoom: v.zoom, scale: r.scale, service: service, warnings: &warnings)
        let (layers, background) = StyledBasemap.layers(style: style, sources: sources, zoom: v.zoom, sprite: sprite)
        return Output(layers: layers, background: background, warnings: warnings, summary: summary, attributions: attributions)
    }
}
