import ArgumentParser
import MapRender

/// What a map looks like and shows: size, style, view, basemap, labels, clustering, decorations.
/// Shared by `render` and `animate`; `apply(to:)` sets a RenderRequest from it.
struct MapOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("Image (or frame) size in CSS pixels.", valueName: "WxH"))
    var size = "1024x768"

    @Option(help: ArgumentHelp("Pixel density: 2 draws the same map with twice the pixels per side (HiDPI).", valueName: "n"))
    var scale = 1.0

    @Option(help: ArgumentHelp("Style file (JSON; see styles/default.json and the README).", valueName: "file"))
    var style: String?

    @Option(help: ArgumentHelp("Background colour (#rrggbb, #rrggbbaa, rgba(...)); overrides the style.", valueName: "colour"))
    var background: String?

    @Option(help: ArgumentHelp("Marker shape: pin, circle or square, at its default size (28, 12, 11 px) unless --marker-size; overrides the style.", valueName: "shape"))
    var marker: String?

    @Option(name: .customLong("marker-size"), help: ArgumentHelp("Marker size in CSS pixels (pin height, circle or square width); overrides the style.", valueName: "px"))
    var markerSize: Double?

    @Option(help: ArgumentHelp("Center of the view; needs --zoom. Write --center=-33.9,151.2 when LAT is negative.", valueName: "lat,lon"))
    var center: String?

    @Option(help: ArgumentHelp("Zoom level (fractional; MapLibre convention, 512 px tiles). Alone, it keeps the fitted center.", valueName: "z"))
    var zoom: Double?

    @Option(help: ArgumentHelp("Show this box in degrees; west > east crosses the antimeridian. Write --bbox=-10,35,30,60 when W is negative.", valueName: "W,S,E,N"))
    var bbox: String?


    @OptionGroup(title: "Clustering")
    var cluster: ClusterOptionGroup

    @Flag(name: .customLong("no-cluster"), help: "Draw every point; do not merge nearby points into bubbles.")
    var noCluster = false

    @Option(name: .customLong("spread-tolerance"), help: ArgumentHelp("Spread pins closer than this many pixels around their shared point (0: only exactly equal coordinates).", valueName: "px"))
    var spreadTolerance = 0.0

    @Option(name: .customLong("spread-max"), help: ArgumentHelp("A colocated group larger than this is drawn as a bubble, not spread.", valueName: "n"))
    var spreadMax = 50

    @Option(help: ArgumentHelp("Margin around the data when fitting, in CSS pixels.", valueName: "px"))
    var padding = 24.0

    @Option(help: ArgumentHelp("GeoJSON polygons and lines to draw under the markers (repeatable).", valueName: "file"))
    var basemap: [String] = []
    @Flag(name: .customLong("no-basemap"), help: "Without --basemap, draw no land: the embedded Natural Earth 1:110m countries are drawn by default.") var noBasemap = false

    @Option(help: ArgumentHelp("Attribution text in the bottom-right corner.", valueName: "text"))
    var attribution: String?

    @Option(help: ArgumentHelp(#"Draw only points for which this MapLibre expression (JSON) is true, e.g. '["==", ["get", "country"], "FR"]'."#, valueName: "expression"))
    var filter: String?

    @Option(help: ArgumentHelp("Property to label each marker with.", valueName: "field"))
    var label: String?

    @Option(name: .customLong("label-priority"), help: ArgumentHelp("Numeric property ranking labels: larger values win a contested place (e.g. population).", valueName: "field"))
    var labelPriority: String?

    @Option(name: .customLong("label-style"), help: ArgumentHelp("plain (text with a halo) or callout (a box with a pointer to its pin, wrapped text).", valueName: "style"))
    var labelStyle = "plain"

    @Flag(name: .customLong("allow-overlap"), help: "Place every label at its first position even if it overlaps others (default: labels that do not fit are dropped and counted).")
    var allowOverlap = false

    @Flag(name: .customLong("scale-bar"), help: "Draw a metric and imperial scale bar (bottom left).")
    var scaleBar = false

    @Flag(help: "Draw a legend of the marker colours when the style's marker fill is a match or step expression (top right).")
    var legend = false

    @Option(name: .customLong("text-scale"), help: ArgumentHelp("Scale text independently of --scale.", valueName: "f"))
    var textScale = 1.0

    func validate() throws {
        guard parseSize(size) != nil else { throw ValidationError("--size must look like 1024x768, got '\(size)'") }
        if let c = center, parseLatLon(c) == nil {
            throw ValidationError("--center must be LAT,LON with |lat| <= 90 and |lon| <= 180, got '\(c)'")
        }
        if center != nil && zoom == nil { throw ValidationError("--center needs --zoom") }
        if bbox != nil && (center != nil || zoom != nil) { throw ValidationError("--bbox cannot be combined with --center or --zoom") }
        if let b = bbox, GeoBounds.parse(b) == nil {
            throw ValidationError("--bbox must be W,S,E,N in degrees with S < N, got '\(b)'")
        }
        if let z = zoom, !(0...24).contains(z) { throw ValidationError("--zoom must be in 0...24, got \(z)") }
        if !(scale > 0 && scale <= 8) { throw ValidationError("--scale must be in (0, 8], got \(scale)") }
        if !(textScale > 0 && textScale <= 10) { throw ValidationError("--text-scale must be in (0, 10], got \(textScale)") }
        if !(padding >= 0 && padding <= 1000) { throw ValidationError("--padding must be in 0...1000, got \(padding)") }
        if let bg = background, RGBA.parse(bg) == nil { throw ValidationError("--background: not a colour: '\(bg)'") }
        if LayoutOptions.LabelStyle(rawValue: labelStyle) == nil {
            throw ValidationError("--label-style must be plain or callout, got '\(labelStyle)'")
        }
        if let m = marker, Style.MarkerShape(rawValue: m) == nil {
            throw ValidationError("--marker must be pin, circle or square, got '\(m)'")
        }
        if !(spreadTolerance >= 0 && spreadTolerance <= 500) { throw ValidationError("--spread-tolerance must be in 0...500, got \(spreadTolerance)") }
        if spreadMax < 2 { throw ValidationError("--spread-max must be at least 2, got \(spreadMax)") }
        if let s = markerSize, !(1...256).contains(s) { throw ValidationError("--marker-size must be in 1...256, got \(s)") }
    }

    /// Sets everything but the inputs and the format.
    func apply(to r: inout RenderRequest) throws {
        if let s = style { r.style = try Style.load(path: s) }
        if let bg = background { r.style.background = RGBA.parse(bg)! }
        if let m = marker {
            r.style.marker.shape = Style.MarkerShape(rawValue: m)!
            r.style.marker.size = r.style.marker.shape.defaultSize
        }
        if let s = markerSize { r.style.marker.size = s }
        (r.width, r.height) = parseSize(size)!
        r.scale = scale
        r.maxZoom = Double(cluster.maxZoom)
        r.clustering = noCluster ? nil : cluster.options
        r.aggregates = cluster.aggregates
        r.spread = SpreadOptions(tolerance: spreadTolerance, maximum: spreadMax)
        r.padding = padding
        if let c = center, let z = zoom {
            let (lat, lon) = parseLatLon(c)!
            r.view = .center(lat: lat, lon: lon, zoom: z)
        } else if let b = bbox {
            r.view = .bbox(GeoBounds.parse(b)!)
        } else {
            r.view = .fit(zoom: zoom)
        }
        if let f = filter { r.filter = try StyleExpression.parse(jsonText: f, file: "--filter", path: "filter", expecting: .boolean) }
        r.basemaps = basemap; r.defaultBasemap = !noBasemap
        r.layout.attribution = attribution
        r.layout.labelField = label
        r.layout.textScale = textScale
        r.layout.labelPriority = labelPriority
        r.layout.scaleBar = scaleBar
        r.layout.legend = legend
        r.layout.allowOverlap = allowOverlap
        r.layout.labelStyle = LayoutOptions.LabelStyle(rawValue: labelStyle)!
    }
}
