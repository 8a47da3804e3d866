/// One layer of a style's `layers` list: how to draw one source's lines or polygons, in the
/// MapLibre style spec's terms (`id`, `type`, `source`, `filter`, `minzoom`, `maxzoom`, `paint`,
/// `layout`), so that a MapLibre style's fill and line layers read the same here.
///
/// Every paint value is an expression (a constant is a folded one), evaluated per feature and
/// zoom: `"fill-color": ["step", ["get", "rate"], "#fee", 5, "#fc9", 10, "#e34"]` is a choropleth.
public struct StyleLayer: Sendable, Equatable {
    public enum LayerType: String, Sendable, CaseIterable {
        /// The colour under everything (MapLibre's `background`): the style's `background`.
        case background
        /// Polygons, filled (and outlined with `fill-outline-color`).
        case fill
        /// Lines, and the outlines of polygons (as MapLibre's line layers draw them).
        case line
    }

    /// Where a layer's features come from.
    public enum Source: String, Sendable, CaseIterable {
        /// The input files (points, lines and polygons): the default.
        case data
        /// The basemap: `--basemap` files, or the built-in land.
        case basemap
    }

    public typealias LineCap = MapRenderCore.LineCap
    public typealias LineJoin = MapRenderCore.LineJoin

    /// Which geometries a layer takes besides what its type draws (the default data layers
    /// keep lines and polygons apart: a polygon's outline is drawn by its fill layer).
    public enum Geometry: Sendable, Equatable { case any, linesOnly }

    public var id: String
    public var type: LayerType
    public var source: Source = .data
    public var filter: StyleExpression?
    /// Drawn when minzoom <= zoom < maxzoom, as in MapLibre.
    public var minzoom = 0.0
    public var maxzoom = 24.0
    public var visible = true
    public var geometry: Geometry = .any
    /// The simplestyle-spec properties of a feature (`fill`, `fill-opacity`, `stroke`,
    /// `stroke-width`, `stroke-opacity`) take precedence over this layer's paint: true for the
    /// layers a style without `layers` gets, false for a style's own layers (which say what they
    /// paint, and may read those properties with `["get", "fill"]`).
    public var simplestyle = false
    /// A layer of a `--basemap-style` (MapLibre style over vector tiles): its polygons are not
    /// the land that labels keep off (a water fill is not land), and its lines are tile-clipped.
    public var fromBasemapStyle = false
    /// Fill each shape on its own, so overlapping ones both show (a basemap style's circles), as
    /// the data's polygons are.
    public var fillsShapesApart = false
    /// Its batches list the feature each path draws (`ShapeBatch.pathFeatures`): an animation's
    /// trail layer, whose segments the animated SVG follows from frame to frame. Not a style
    /// property: nothing reads it from a style file.
    public var keepsFeatures = false

    // Paint (`fill-*` for fill layers, `line-*` for line layers).
    public var fillColor = StyleExpression(constant: .color(RGBA.parse("#555555")!))
    public var fillOpacity = StyleExpression(constant: .number(1))
    /// nil: no outline.
    public var fillOutlineColor: StyleExpression?
    /// The outline's width (maprender's; MapLibre's outline is always 1 px).
    public var fillOutlineWidth = StyleExpression(constant: .number(1))
    public var lineColor = StyleExpression(constant: .color(RGBA.parse("#000000")!))
    public var lineWidth = StyleExpression(constant: .number(1))
    public var lineOpacity = StyleExpression(constant: .number(1))
    /// `fill-pattern` of a basemap style: the name of an image of `sprite`, tiled over the fill.
    public var fillPattern: StyleExpression?
    /// `line-pattern` of a basemap style: the name of an image of `sprite`, repeated along the
    /// line, its height the line's width.
    public var linePattern: StyleExpression?
    /// The images `fillPattern` and `linePattern` name (a basemap style's sprite).
    public var sprite: Sprite?
    /// `line-blur` of a basemap style, px.
    public var lineBlur = StyleExpression(constant: .number(0))
    /// Dash and gap lengths in line widths, as MapLibre's `line-dasharray`; nil: solid.
    public var lineDasharray: [Double]?
    public var lineCap: LineCap = .butt
    public var lineJoin: LineJoin = .miter

    public init(id: String, type: LayerType, source: Source = .data) {
        self.id = id; self.type = type; self.source = source
    }

    /// Whether the layer draws at `zoom`.
    public func shows(atZoom zoom: Double) -> Bool { visible && zoom >= minzoom && zoom < maxzoom }

    /// Property names the layer reads, so a reader keeps those columns.
    public var propertyNames: Set<String> {
        var s = Set<String>()
        for e in [filter, fillColor, fillOpacity, fillOutlineColor, fillOutlineWidth, lineColor, lineWidth, lineOpacity] {
            if let e { s.formUnion(e.propertyNames) }
        }
        if simplestyle { s.formUnion(SimpleStyle.keys) }
        return s
    }
}

/// The simplestyle-spec keys a feature may carry for lines and polygons, and their defaults
/// (github.com/mapbox/simplestyle-spec, 1.1.0).
public enum SimpleStyle {
    public static let keys: Set<String> = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity"]
    public static let fill = RGBA.parse("#555555")!
    public static let fillOpacity = 0.6
    public static let stroke = RGBA.parse("#555555")!
    public static let strokeWidth = 2.0
    public static let strokeOpacity = 1.0
}

extension Style {
    /// The fill and line layers a style without `layers` draws, from its `basemap` section: the
    /// basemap's polygons with their outline, then its lines; then the data's polygons and lines
    /// in the simplestyle-spec defaults, each feature's own simplestyle properties first.
    public var defaultShapeLayers: [StyleLayer] {
        var basemapFill = StyleLayer(id: "basemap-fill", type: .fill, source: .basemap)
        basemapFill.fillColor = basemap.fillExpression ?? StyleExpression(constant: .color(basemap.fill))
        basemapFill.fillOutlineColor = StyleExpression(constant: .color(basemap.stroke))
        basemapFill.fillOutlineWidth = StyleExpression(constant: .number(basemap.strokeWidth))
        basemapFill.simplestyle = true
        var basemapLines = StyleLayer(id: "basemap-lines", type: .line, source: .basemap)
        basemapLines.geometry = .linesOnly
        basemapLines.lineColor = StyleExpression(constant: .color(basemap.lineColor))
        basemapLines.lineWidth = StyleExpression(constant: .number(basemap.lineWidth))
        basemapLines.lineCap = .round
        basemapLines.lineJoin = .round
        basemapLines.simplestyle = true
        var dataFill = StyleLayer(id: "data-fill", type: .fill)
        dataFill.fillColor = StyleExpression(constant: .color(SimpleStyle.fill))
        dataFill.fillOpacity = StyleExpression(constant: .number(SimpleStyle.fillOpacity))
        dataFill.fillOutlineColor = StyleExpression(constant: .color(SimpleStyle.stroke))
        dataFill.fillOutlineWidth = StyleExpression(constant: .number(SimpleStyle.strokeWidth))
        dataFill.simplestyle = true
        var dataLines = StyleLayer(id: "data-lines", type: .line)
        dataLines.geometry = .linesOnly
        dataLines.lineColor = StyleExpression(constant: .color(SimpleStyle.stroke))
        dataLines.lineWidth = StyleExpression(constant: .number(SimpleStyle.strokeWidth))
        dataLines.lineCap = .round
        dataLines.lineJoin = .round
        dataLines.simplestyle = true
        return [basemapFill, basemapLines, dataFill, dataLines]
    }

    /// The layers drawn for lines and polygons: the basemap's (the style's own layers of source
    /// `basemap`, else the default ones), then the data's (the style's own, with the default
    /// fill layer under them when none of them fills, and the default line layer over them when
    /// none of them draws lines: a style that only colours polygons still shows the data's lines).
    public var shapeLayers: [StyleLayer] {
        let defaults = defaultShapeLayers
        guard let own = layers?.filter({ $0.type != .background }) else { return defaults }
        let ownBasemap = own.filter { $0.source == .basemap }, ownData = own.filter { $0.source == .data }
        var out = ownBasemap.isEmpty ? defaults.filter { $0.source == .basemap } : ownBasemap
        if !ownData.contains(where: { $0.type == .fill }) { out += defaults.filter { $0.source == .data && $0.type == .fill } }
        out += ownData
        if !ownData.contains(where: { $0.type == .line }) { out += defaults.filter { $0.source == .data && $0.type == .line } }
        return out
    }
}
