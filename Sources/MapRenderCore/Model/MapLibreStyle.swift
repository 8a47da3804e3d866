import Foundation

/// A MapLibre style (spec v8), as `--basemap-style` reads it: its sources and its layers, each
/// layer's fill and line paint mapped onto the one layer model (`StyleLayer`), so they are drawn by
/// ShapeLayout like every other fill and line.
///
/// Reading is lenient where MapLibre's rendering is: a paint or layout property this renderer does
/// not draw, or an expression it cannot evaluate, is listed in `unsupported` (once per property,
/// with the layers that use it) and the property keeps its default. What MapLibre itself would
/// refuse (not version 8, a layer without id or type, a source without type) is an error naming
/// the file, the layer and the key.
public struct MapLibreStyle: Sendable {
    public enum SourceKind: String, Sendable { case vector, raster, geojson }

    public struct Source: Sendable {
        public var id: String
        public var kind: SourceKind
        /// What the tile layer opens (MapRenderTiles' `--tiles` forms): a .pmtiles or .mbtiles path,
        /// a pmtiles URL, a URL template, a folder. Nil for GeoJSON.
        public var tiles: String?
        /// A vector source's TileJSON document (`url` naming one): a local path or an http(s)
        /// URL. Read when the map is drawn (`TileJSON`): it gives `tiles`, zooms and bounds.
        public var tileJSON: String?
        /// West, south, east, north: tiles wholly outside are not requested (from TileJSON).
        public var bounds: [Double]?
        public var minzoom = 0
        public var maxzoom = 14
        public var tileSize = 512
        public var attribution: String?
        /// GeoJSON: a file (resolved against the style's folder), or inline data as JSON bytes.
        public var geojsonPath: String?
        public var geojsonData: Data?
    }

    /// One layer as the style gives it. `style` holds what every type shares (id, filter, zooms,
    /// visibility) and, for background, fill and line layers, their paint.
    public struct Layer: Sendable {
        public var type: String
        public var style: StyleLayer
        public var source: String?
        public var sourceLayer: String?
        /// The label of a symbol layer (`SymbolStyle`); nil for the other types.
        public var symbol: SymbolStyle?
        /// A circle layer's paint; nil for the other types.
        public var circle: CircleStyle?
        /// A line layer's `line-offset` and `line-gap-width` (px; by zoom and by feature).
        public var lineOffset: StyleExpression?
        public var lineGapWidth: StyleExpression?
        public var id: String { style.id }
    }

    public var name: String?
    public var file: String
    /// One sprite of the style: `"sprite": "URL"` is the one with id `default`; `"sprite":
    /// [{"id": ..., "url": ...}]` names several, whose images are `id:name` (but `default`'s).
    public struct SpriteSource: Sendable, Equatable {
        public var id: String
        /// The sheets' path or http(s) URL, without `.json`/`.png` (and `@2x`).
        public var location: String
        public var isRemote: Bool { location.lowercased().hasPrefix("http://") || location.lowercased().hasPrefix("https://") }
        /// What an image of this sprite is called in `icon-image` and the patterns.
        public func imageName(_ name: String) -> String { id == "default" ? name : "\(id):\(name)" }
    }

    /// The style's sprites (local files and http(s) URLs, fetched through the tile layer).
    public var sprites: [SpriteSource] = []
    public var sources: [Source] = []
    public var layers: [Layer] = []
    /// Property (or layer type) → ids of the layers that use it, for what is not drawn.
    public var unsupported: [String: [String]] = [:]

    /// The source named `id`.
    public func source(_ id: String) -> Source? { sources.first { $0.id == id } }

    /// The unsupported properties, one line each, sorted: `fill-pattern (2 layers: park, wood)`.
    public var unsupportedLines: [String] {
        unsupported.keys.sorted().map { k in
            let ids = unsupported[k]!
            let shown = ids.prefix(3).joined(separator: ", ") + (ids.count > 3 ? ", ..." : "")
            return "\(k) (\(ids.count) layer\(ids.count == 1 ? "" : "s"): \(shown))"
        }
    }

    /// Whether a layer shown at `zoom` draws sprite images (`icon-image`, `fill-pattern`,
    /// `line-pattern`): the sprites are read only then.
    public func usesImages(atZoom zoom: Double) -> Bool {
        layers.contains { l in
            l.style.shows(atZoom: zoom) && (l.symbol?.iconImage != nil || l.style.fillPattern != nil || l.style.linePattern != nil)
        }
    }

    /// Source layer names each source's layers read (to skip the others when decoding).
    public func sourceLayers(of source: String) -> Set<String> {
        Set(layers.filter { $0.source == source }.compactMap(\.sourceLayer))
    }

    public static func load(path: String) throws -> MapLibreStyle {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MapRenderError(.inputUnreadable, "cannot read basemap style \(path): no such file or not readable")
        }
        return try parse(data: data, file: path, directory: (path as NSString).deletingLastPathComponent)
    }

    public static func parse(data: Data, file: String, directory: String) throws -> MapLibreStyle {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw MapRenderError(.style, "\(file): not valid JSON: \(Style.describeJSONError(error, in: data))")
        }
        var reader = MapLibreStyleReader(file: file, directory: directory)
        return try reader.read(root)
    }
}

/// Reads the JSON of a MapLibre style.
struct MapLibreStyleReader {
    let file: String
    let directory: String
    var out: MapLibreStyle

    init(file: String, directory: String) {
        self.file = file; self.directory = directory
        out = MapLibreStyle(file: file)
    }

    func fail(_ path: String, _ m: String) -> MapRenderError { MapRenderError(.style, "\(file): \(path): \(m)") }

    mutating func note(_ property: String, _ layer: String) {
        if out.unsupported[property]?.contains(layer) != true { out.unsupported[property, default: []].append(layer) }
    }

    /// Paint and layout properties drawn, per layer type.
    static let drawn: [String: Set<String>] = [
        "background": ["background-color", "visibility"],
        "fill": ["fill-color", "fill-opacity", "fill-outline-color", "fill-antialias", "fill-pattern", "visibility"],
        "line": ["line-color", "line-width", "line-opacity", "line-dasharray", "line-cap", "line-join",
                 "line-miter-limit", "line-round-limit", "line-offset", "line-gap-width", "line-blur", "line-pattern", "visibility"],
        "symbol": SymbolStyle.drawn.union(["visibility"]),
        "circle": ["circle-color", "circle-radius", "circle-opacity", "circle-stroke-color", "circle-stroke-width", "visibility"],
    ]

    mutating func read(_ root: Any) throws -> MapLibreStyle {
        guard let o = root as? [String: Any] else { throw fail("(top level)", "expected a style object") }
        guard let v = o["version"] as? NSNumber, v.intValue == 8 else {
            throw fail("version", "expected 8 (MapLibre style spec v8), got \(o["version"].map(StyleReader.show) ?? "nothing")")
        }
        out.name = o["name"] as? String
        if let s = o["sources"] {
            guard let m = s as? [String: Any] else { throw fail("sources", "expected an object of sources by id") }
            for id in m.keys.sorted() { out.sources.append(try source(id, m[id]!)) }
        }
        if let sp = o["sprite"] {
            // A path, a file:// or an http(s) URL; or an array of them with ids.
            if let str = sp as? String {
                if let loc = spriteLocation(str, "sprite") { out.sprites = [.init(id: "default", location: loc)] }
            } else if let list = sp as? [Any] {
                guard list.count <= 64 else { throw fail("sprite", "more than 64 sprites") }
                for (i, item) in list.enumerated() {
                    guard let e = item as? [String: Any], let id = e["id"] as? String, !id.isEmpty, let url = e["url"] as? String else {
                        throw fail("sprite[\(i)]", "expected {\"id\": \"...\", \"url\": \"...\"}")
                    }
                    guard !out.sprites.contains(where: { $0.id == id }) else { throw fail("sprite[\(i)].id", "another sprite has the id \"\(id)\"") }
                    if let loc = spriteLocation(url, "sprite[\(i)]") { out.sprites.append(.init(id: id, location: loc)) }
                }
            } else {
                throw fail("sprite", "expected a URL or an array of {\"id\", \"url\"}")
            }
        }
        guard let ls = o["layers"] as? [Any] else { throw fail("layers", "expected an array of layers") }
        var ids = Set<String>()
        for (i, item) in ls.enumerated() {
            guard let l = try layer(i, item) else { continue }
            guard ids.insert(l.id).inserted else { throw fail("layers[\(i)].id", "another layer has the id \"\(l.id)\"") }
            out.layers.append(l)
        }
        return out
    }

    /// A sprite's URL → its path or http(s) URL; nil (noted) for a `mapbox://` one.
    mutating func spriteLocation(_ url: String, _ path: String) -> String? {
        let lower = url.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return url }
        if lower.hasPrefix("mapbox://") { note("sprite (a mapbox:// URL: \(url))", "(style)"); return nil }
        return resolve(lower.hasPrefix("file://") ? String(url.dropFirst(7)) : url)
    }

    func resolve(_ path: String) -> String { Self.resolve(path, in: directory) }

    static func resolve(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") || directory.isEmpty ? path : (directory as NSString).appendingPathComponent(path)
    }

    /// A source's `url` that names a TileJSON document, resolved (a path, or the URL); nil for the
    /// other forms (`pmtiles://`, `mbtiles://`, a template, a `.pmtiles` URL, a folder).
    func tileJSONLocation(_ url: String) -> String? {
        let lower = url.lowercased()
        guard !lower.hasPrefix("pmtiles://"), !lower.hasPrefix("mbtiles://"), !url.contains("{z}") else { return nil }
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return lower.hasSuffix(".pmtiles") ? nil : url }
        let path = lower.hasPrefix("file://") ? String(url.dropFirst(7)) : url
        return path.lowercased().hasSuffix(".json") ? resolve(path) : nil
    }

    /// `pmtiles://path`, `pmtiles://https://...`, `mbtiles://path`, `file://...` or a URL template
    /// → what the tile layer opens.
    func tileSpec(_ url: String, _ path: String) throws -> String {
        for scheme in ["pmtiles://", "mbtiles://"] where url.lowercased().hasPrefix(scheme) {
            let rest = String(url.dropFirst(scheme.count))
            if rest.lowercased().hasPrefix("http://") || rest.lowercased().hasPrefix("https://") { return rest }
            if rest.lowercased().hasPrefix("file://") { return resolve(String(rest.dropFirst(7))) }
            return resolve(rest)
        }
        if url.lowercased().hasPrefix("file://") { return resolve(String(url.dropFirst(7))) }
        if url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") {
            if url.contains("{z}") || url.lowercased().hasSuffix(".pmtiles") { return url }
            throw fail(path, "\(url) is neither a tile template nor a PMTiles file; give \"url\": \"pmtiles://FILE\" or a TileJSON URL, or \"tiles\": [\"https://.../{z}/{x}/{y}.pbf\"]")
        }
        // A template of a local folder: "tiles/{z}/{x}/{y}.pbf" → the folder.
        if let r = url.range(of: "/{z}/{x}/{y}") { return resolve(String(url[..<r.lowerBound])) }
        return resolve(url)
    }

    func source(_ id: String, _ v: Any) throws -> MapLibreStyle.Source {
        let p = "sources.\(id)"
        guard let o = v as? [String: Any] else { throw fail(p, "expected a source object") }
        guard let t = o["type"] as? String else { throw fail("\(p).type", "missing; expected \"vector\", \"raster\" or \"geojson\"") }
        guard let kind = MapLibreStyle.SourceKind(rawValue: t) else {
            throw fail("\(p).type", "\"\(t)\" sources are not drawn; expected \"vector\", \"raster\" or \"geojson\"")
        }
        var s = MapLibreStyle.Source(id: id, kind: kind)
        s.attribution = o["attribution"] as? String
        if let z = o["minzoom"] as? NSNumber { s.minzoom = max(0, min(30, z.intValue)) }
        if let z = o["maxzoom"] as? NSNumber { s.maxzoom = max(0, min(30, z.intValue)) }
        s.tileSize = (o["tileSize"] as? NSNumber)?.intValue ?? (kind == .raster ? 512 : 512)
        if kind == .raster && o["tileSize"] == nil { s.tileSize = 512 }
        switch kind {
        case .vector, .raster:
            if let tiles = o["tiles"] as? [Any] {
                guard let first = tiles.first as? String else { throw fail("\(p).tiles", "expected an array of URL templates") }
                s.tiles = try tileSpec(first, "\(p).tiles[0]")
            } else if let url = o["url"] as? String, kind == .vector, let doc = tileJSONLocation(url) {
                s.tileJSON = doc
            } else if let url = o["url"] as? String {
                s.tiles = try tileSpec(url, "\(p).url")
            } else {
                throw fail(p, "a \(t) source needs \"url\" or \"tiles\"")
            }
            if o["maxzoom"] == nil && kind == .vector { s.maxzoom = 30 }  // the file's own zooms rule
            if let v = o["scheme"] {
                guard let scheme = v as? String, scheme == "xyz" || scheme == "tms" else {
                    throw fail("\(p).scheme", "expected \"xyz\" or \"tms\", got \(StyleReader.show(v))")
                }
                if scheme == "tms", let t = s.tiles {
                    // A TileJSON document's own scheme rules its tiles; the source's applies to its own.
                    guard let flipped = TileJSON.flippedRows(t) else {
                        throw fail("\(p).scheme", "\"tms\" is read for URL templates with {y}, not for \(t)")
                    }
                    s.tiles = flipped
                }
            }
        case .geojson:
            if let d = o["data"] as? String {
                s.geojsonPath = resolve(d.lowercased().hasPrefix("file://") ? String(d.dropFirst(7)) : d)
            } else if let d = o["data"], d is [String: Any] {
                s.geojsonData = try JSONSerialization.data(withJSONObject: d)
            } else {
                throw fail("\(p).data", "expected a GeoJSON object or a file path")
            }
        }
        return s
    }

    mutating func layer(_ i: Int, _ item: Any) throws -> MapLibreStyle.Layer? {
        var p = "layers[\(i)]"
        guard let o = item as? [String: Any] else { throw fail(p, "expected a layer object") }
        guard let id = o["id"] as? String, !id.isEmpty else { throw fail("\(p).id", "expected a non-empty string naming the layer") }
        p = "layers[\(i)] (\"\(id)\")"
        guard let type = o["type"] as? String else { throw fail("\(p).type", "missing") }
        let known = ["background", "fill", "line", "symbol", "circle", "raster", "fill-extrusion", "heatmap", "hillshade", "color-relief"]
        guard known.contains(type) else { throw fail("\(p).type", "unknown layer type \"\(type)\"") }
        let styleType: StyleLayer.LayerType = type == "background" ? .background : type == "line" ? .line : .fill
        var layer = StyleLayer(id: id, type: styleType, source: .basemap)
        layer.fromBasemapStyle = true
        var out = MapLibreStyle.Layer(type: type, style: layer, source: o["source"] as? String,
                                      sourceLayer: o["source-layer"] as? String)
        if type != "background" {
            guard let s = out.source else { throw fail("\(p).source", "missing") }
            guard let src = self.out.source(s) else { throw fail("\(p).source", "no source \"\(s)\" in the style's sources") }
            if (type == "raster") != (src.kind == .raster) {
                throw fail("\(p).source", "a \(type) layer cannot draw the \(src.kind.rawValue) source \"\(s)\"")
            }
            if src.kind == .vector && out.sourceLayer == nil { throw fail("\(p).source-layer", "missing (a vector source's layer)") }
        }
        if let z = o["minzoom"] as? NSNumber { out.style.minzoom = z.doubleValue }
        if let z = o["maxzoom"] as? NSNumber { out.style.maxzoom = z.doubleValue }
        let layout = o["layout"] as? [String: Any] ?? [:]
        let paint = o["paint"] as? [String: Any] ?? [:]
        if let v = layout["visibility"] as? String { out.style.visible = v != "none" }
        if !["background", "fill", "line", "symbol", "raster", "circle"].contains(type) {
            note("\(type) layers", id)
            return out
        }
        if let f = o["filter"] {
            do { out.style.filter = try StyleExpression.parseFilter(f, file: file, path: "\(p).filter") }
            catch let e as MapRenderError {
                // A filter that cannot be read: the layer is left out, not drawn unfiltered.
                note("filter: \(e.message.replacingOccurrences(of: "\(file): ", with: ""))", id)
                out.style.visible = false
            }
        }
        let drawn = Self.drawn[type] ?? ["visibility"]
        for k in (Array(paint.keys) + Array(layout.keys)).sorted() where !drawn.contains(k) {
            if type == "raster" && k == "raster-opacity", (paint[k] as? NSNumber)?.doubleValue == 1 { continue }
            note(k, id)
        }
        func expr(_ m: [String: Any], _ key: String, _ t: ExpressionType, _ path: String) -> StyleExpression? {
            guard let v = m[key] else { return nil }
            do { return try StyleExpression.parseProperty(v, file: file, path: "\(p).\(path).\(key)", expecting: t) }
            catch { note("\(key) (an expression not read)", id); return nil }
        }
        switch type {
        case "background":
            if let e = expr(paint, "background-color", .color, "paint") {
                if e.isConstant { out.style.fillColor = e } else { note("background-color (not constant)", id) }
            } else {
                out.style.fillColor = StyleExpression(constant: .color(RGBA(0, 0, 0, 1)))
            }
        case "fill":
            out.style.fillColor = expr(paint, "fill-color", .color, "paint") ?? StyleExpression(constant: .color(RGBA(0, 0, 0, 1)))
            if let e = expr(paint, "fill-opacity", .number, "paint") { out.style.fillOpacity = e }
            if let e = expr(paint, "fill-outline-color", .color, "paint"), (paint["fill-antialias"] as? Bool) != false {
                out.style.fillOutlineColor = e
            }
            if paint["fill-pattern"] != nil {
                if self.out.sprites.isEmpty { note("fill-pattern (no sprite)", id) }
                else if let e = expr(paint, "fill-pattern", .string, "paint") { out.style.fillPattern = e }
            }
        case "line":
            if let e = expr(paint, "line-color", .color, "paint") { out.style.lineColor = e }
            if let e = expr(paint, "line-width", .number, "paint") { out.style.lineWidth = e }
            if let e = expr(paint, "line-opacity", .number, "paint") { out.style.lineOpacity = e }
            if let e = expr(paint, "line-blur", .number, "paint") { out.style.lineBlur = e }
            if paint["line-pattern"] != nil {
                if self.out.sprites.isEmpty { note("line-pattern (no sprite)", id) }
                else if let e = expr(paint, "line-pattern", .string, "paint") { out.style.linePattern = e }
            }
            for key in ["line-offset", "line-gap-width"] {
                guard let e = expr(paint, key, .number, "paint") else { continue }
                if key == "line-offset" { out.lineOffset = e } else { out.lineGapWidth = e }
            }
            if let d = paint["line-dasharray"] {
                if let nums = Self.numbers(d), !nums.isEmpty, nums.allSatisfy({ $0 >= 0 && $0.isFinite }), nums.contains(where: { $0 > 0 }) {
                    out.style.lineDasharray = nums
                } else {
                    note("line-dasharray (not a constant array)", id)
                }
            }
            if let c = layout["line-cap"] {
                if let s = c as? String, let v = LineCap(rawValue: s) { out.style.lineCap = v } else { note("line-cap (not constant)", id) }
            }
            if let j = layout["line-join"] {
                if let s = j as? String, let v = LineJoin(rawValue: s) { out.style.lineJoin = v } else { note("line-join (not constant)", id) }
            }
        case "circle":
            var c = CircleStyle()
            if let e = expr(paint, "circle-color", .color, "paint") { c.color = e }
            if let e = expr(paint, "circle-radius", .number, "paint") { c.radius = e }
            if let e = expr(paint, "circle-opacity", .number, "paint") { c.opacity = e }
            if let e = expr(paint, "circle-stroke-color", .color, "paint") { c.strokeColor = e }
            if let e = expr(paint, "circle-stroke-width", .number, "paint") { c.strokeWidth = e }
            out.circle = c
        case "symbol":
            var notes: [String] = []
            out.symbol = SymbolStyle.read(layout: layout, paint: paint, file: file, path: p, notes: &notes)
            if layout["icon-image"] != nil && self.out.sprites.isEmpty {
                notes.append("icon-image (no sprite)")
                out.symbol?.iconImage = nil
            }
            for n in notes { note(n, id) }
        default:
            break
        }
        return out
    }

    /// A constant number array, plain or as `["literal", [...]]`.
    static func numbers(_ v: Any) -> [Double]? {
        var raw = v
        if let a = v as? [Any], a.count == 2, a[0] as? String == "literal" { raw = a[1] }
        guard let a = raw as? [Any], a.count <= 16 else { return nil }
        var out: [Double] = []
        for x in a {
            guard let n = x as? NSNumber, !StyleReader.isBool(n) else { return nil }
            out.append(n.doubleValue)
        }
        return out
    }
}

/// A circle layer's paint (MapLibre's defaults): drawn as small polygons through the fill path.
public struct CircleStyle: Sendable {
    public var color = StyleExpression(constant: .color(RGBA(0, 0, 0, 1)))
    public var radius = StyleExpression(constant: .number(5))
    public var opacity = StyleExpression(constant: .number(1))
    public var strokeColor = StyleExpression(constant: .color(RGBA(0, 0, 0, 1)))
    public var strokeWidth = StyleExpression(constant: .number(0))
    public init() {}
}
