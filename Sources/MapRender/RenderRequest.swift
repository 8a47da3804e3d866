import Foundation
import MapRenderCore
import MapRenderTiles

/// Everything one map needs. The CLI builds one from its options; Swift programs build one directly.
public struct RenderRequest: Sendable {
    /// Point files (`-` is standard input). Ignored when `points` is set.
    public var inputs: [String] = []
    /// Point, line and polygon data held in memory (GeoJSON or CSV bytes, `maprender serve`'s
    /// overlays and posted data), read after `inputs` as a file of that name would be.
    public var inlineInputs: [InlineInput] = []
    /// Points given directly (library use), instead of reading `inputs`.
    public var points: PointSet?
    public var inputOptions = InputOptions()
    public var style = Style.default
    /// Size in CSS pixels; the image has `scale` times as many pixels per side.
    public var width = 1024.0
    public var height = 768.0
    public var scale = 1.0
    public var view: ViewSpec = .fit(zoom: nil)
    /// The highest zoom a fitted view may take (a single point gets min(this, 14)).
    public var maxZoom = 16.0
    /// Empty margin around the data when fitting, CSS px.
    public var padding = 24.0
    /// GeoJSON files with polygons and lines drawn under the markers.
    public var basemaps: [String] = []
    /// With no `basemaps`, draw the embedded Natural Earth land and borders (`--no-basemap`: false).
    public var defaultBasemap = true
    /// `--basemap-style`: a MapLibre style over vector (and raster, GeoJSON) sources, drawn
    /// instead of the built-in land, under the data.
    public var basemapStyle: MapLibreStyle?
    /// `--background` was given: it wins over a `--basemap-style` background layer.
    public var backgroundGiven = false
    public var layout = LayoutOptions()
    /// Clustering at the rendered zoom (supercluster semantics); nil draws every point.
    /// Its `maxZoom` is the cluster max zoom; `radius` is in pixels at extent 512.
    public var clustering: ClusterOptions? = ClusterOptions()
    /// Aggregated cluster properties (`--cluster-sum FIELD`, ...).
    public var aggregates: [ClusterAggregate] = []
    public var spread = SpreadOptions()
    /// Per-point opacity and size factors in 0...1 for `points` (animation frames: fading, growing in).
    public var pointOpacity: [Double]?
    public var pointScale: [Double]?
    /// Keep only the points for which this expression is true (`--filter`, batch `filter`).
    public var filter: StyleExpression?
    public var format: OutputFormat = .png
    /// JPEG and WebP quality, 1...100 (`--quality`; 100 is lossless WebP). PNG, SVG and PDF ignore it.
    public var quality = OutputFormat.defaultQuality
    /// Draw text with the machine's fonts (`--system-fonts`) instead of maprender's pinned ones.
    public var systemFonts = false
    /// Raster tile basemaps (`--tiles`) and how they are fetched; drawn under `basemaps`.
    public var tiles = TileOptions()
    /// Write a map even when no point is left after reading and filtering (`--allow-empty`).
    /// Off, such a render of input files fails and the previous output stays as it was.
    public var allowEmpty = false
    /// Make the warnings about expression results that cannot be used (`marker.size` out of
    /// range, `marker.fill` not a colour) errors (`--strict`).
    public var strict = false
    /// Refuse a render whose memory, estimated up front (`RenderBounds`: image, GeoJSON files,
    /// CSV rows) or counted while reading input of unknown size, exceeds this many bytes
    /// (`--max-memory`, in MB on the command line).
    public var maxMemory = 8 << 30
    /// Threads one render may use (compositing markers); nil uses the cores. A server running one
    /// render per core gives 1, so renders do not each start a parallel loop. The bytes are the same.
    public var threads: Int?
    /// Join the points into one line per value of a property (`--line-by`, `--order-by`).
    public var pointLines: PointLines?
    /// With `pointLines`: draw the lines only, not the points (`--line-only`).
    public var lineOnly = false
    /// A great-circle arc from each point to the destination in two of its properties (`--to-lat`, `--to-lon`).
    public var pointArcs: PointArcs?
    /// A geodesic circle around each point (`--circle-radius`).
    public var pointCircles: PointCircles?
    /// Number the points (1, 2, 3 ... in input order, or `pointLines.orderBy`'s, per line of
    /// `pointLines.field` when given) inside their markers (`--number-markers`).
    public var numberMarkers = false

    public init() {}

    /// Data bytes with a name that stands for a file name: its extension picks the format
    /// (`overlay.geojson`, `data.csv`) unless `inputOptions.format` is given, and messages name it.
    public struct InlineInput: Sendable {
        public var name: String
        public var data: Data
        public init(name: String, data: Data) { self.name = name; self.data = data }
    }

    /// What planning needs from this request (view, size, clustering, spreading, label ranking).
    public var planOptions: PlanOptions {
        var o = PlanOptions()
        o.view = view
        o.width = width; o.height = height
        o.padding = padding
        o.maxZoom = maxZoom
        o.clustering = clustering
        o.aggregates = aggregates
        o.spread = spread
        o.labelField = layout.labelField
        o.labelPriority = layout.labelPriority
        // Tiles drawn pixel-crisp: every view snapped before its marks are planned.
        o.integerZoomScale = tiles.integerZoom && !tiles.sources.isEmpty ? scale : nil
        return o
    }

    /// The property columns this render reads, so readers can drop the others (the 1M-row fast path).
    var neededProperties: Set<String> {
        var s = MarkerStyler.propertyNames(style: style)
        if let l = layout.labelField { s.insert(l) }
        if let p = layout.labelPriority { s.insert(p) } else if layout.labelField != nil { s.formUnion(BubbleNaming.candidateNames) }
        if let i = inputOptions.idField { s.insert(i) }
        if let f = filter { s.formUnion(f.propertyNames) }
        if let l = pointLines { s.insert(l.field); if let o = l.orderBy { s.insert(o) } }
        if let a = pointArcs { s.insert(a.latField); s.insert(a.lonField) }
        if case .expression(let e)? = pointCircles?.radius { s.formUnion(e.propertyNames) }
        for a in aggregates { s.insert(a.field) }
        for l in style.shapeLayers where l.source == .data { s.formUnion(l.propertyNames) }
        s.insert(MarkerTextLayout.property)   // drawn inside the markers
        return s
    }
}
