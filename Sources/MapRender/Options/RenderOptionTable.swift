import Foundation
import MapRenderCore
import MapRenderCairo

/// Every option of a render, once: the command line (`render`'s groups, `animate`, `cluster`,
/// `inspect`), the batch manifest's keys and `--help` are all made from this list.
///
/// To add an option: add one entry here (name, form, default, help, and how it applies to the
/// settings), then one line in the CLI group it belongs to, e.g.
/// `@Option(help: .table("tile-url")) var tileURL: String?` (property = the camel-cased name; a
/// flag is `@Flag(help: .table("no-basemap")) var noBasemap = false`). Nothing else: the
/// manifest accepts the key, the value is checked the same way everywhere, and the test
/// `cliOptionsMatchTheTable` fails until the CLI line exists. (`RenderOptionTableTests.samples`
/// wants one good value for it, to check that the command line and a manifest agree.)
/// A value that may start with '-' (a number, a box) is declared `@Option(parsing: .unconditional, ...)`
/// so that `--zoom -1` reaches the table's check instead of ArgumentParser's "Missing value".
public enum RenderOptionTable {
    /// The highest zoom anywhere: `--zoom`, `--max-zoom`, and a view fitted to a `--bbox`.
    public static let zoomLimit = ViewFitter.zoomLimit
    /// Largest width and height, CSS px.
    public static let sizeLimit = 16384

    public static let options: [RenderOption] = input + map + clustering + tiles

    /// The entry with this long option name (`no-cluster`) or manifest key (`cluster`).
    public static func option(named name: String) -> RenderOption? {
        options.first { $0.cliName == name || $0.name == name }
    }

    /// Which CLI group each entry belongs to (`render` has all three).
    public static let input: [RenderOption] = [
        RenderOption("input-format", .value(valueName: "format"),
                     "Input format: csv or geojson (default: from the extension, else sniffed).") { v, s, _ in
            s.base.inputOptions.format = try v.choice(["csv", "geojson"]) { InputOptions.Format(rawValue: $0) }
        },
        RenderOption("lat", .value(valueName: "name"), "CSV latitude column (default: lat, latitude or y, any case).") { v, s, _ in
            s.base.inputOptions.latField = try v.string()
        },
        RenderOption("lon", .value(valueName: "name"),
                     "CSV longitude column (default: lon, lng, long, longitude or x, any case).") { v, s, _ in
            s.base.inputOptions.lonField = try v.string()
        },
        RenderOption("wkt", .value(valueName: "name"),
                     "CSV column holding each row's geometry as WKT (POINT, LINESTRING, POLYGON, their MULTI forms, GEOMETRYCOLLECTION; EWKT with SRID=4326), instead of latitude and longitude columns.") { v, s, _ in
            if case .polyline? = s.base.inputOptions.geometryColumn?.encoding { throw v.fail("--wkt and --polyline cannot both be given") }
            s.base.inputOptions.geometryColumn = .init(name: try v.string(), encoding: .wkt)
        },
        RenderOption("polyline", .value(valueName: "name"),
                     "CSV column holding each row's line as a Google encoded polyline, instead of latitude and longitude columns.") { v, s, _ in
            if case .wkt? = s.base.inputOptions.geometryColumn?.encoding { throw v.fail("--wkt and --polyline cannot both be given") }
            s.base.inputOptions.geometryColumn = .init(name: try v.string(), encoding: .polyline)
        },
        RenderOption("polyline-precision", .value(valueName: "digits"), default: "5",
                     "Decimal digits of the coordinates in the --polyline column: 5 (Google's) or 6 (OSRM, Valhalla).") { v, s, _ in
            let p = try v.integer(5...6)
            s.base.inputOptions.polylinePrecision = p
        },
        RenderOption("line-by", .value(valueName: "name"),
                     "Join the points into one line per value of this property (GPS tracks by device), in input order or by --order-by; the lines are drawn under the points.") { v, s, _ in
            let field = try v.string()
            s.base.pointLines = PointLines(field: field, orderBy: s.base.pointLines?.orderBy)
        },
        RenderOption("order-by", .value(valueName: "name"),
                     "With --line-by or --number-markers: order each line's points (or the numbers) by this property (numbers ascending, then text) instead of input order.") { v, s, _ in
            let field = try v.string()
            s.base.pointLines = PointLines(field: s.base.pointLines?.field ?? "", orderBy: field)
        },
        RenderOption("line-only", .flag, "With --line-by, or --to-lat and --to-lon: draw the lines or arcs only, not the points.") { v, s, _ in
            s.base.lineOnly = try v.bool()
        },
        RenderOption("to-lat", .value(valueName: "name"),
                     "With --to-lon: draw a great-circle arc from each row's point to the latitude in this column (flight routes, flows), the short way across 180°, under the points.") { v, s, _ in
            let field = try v.string()
            s.base.pointArcs = PointArcs(latField: field, lonField: s.base.pointArcs?.lonField ?? "")
        },
        RenderOption("to-lon", .value(valueName: "name"),
                     "With --to-lat: the column holding each arc's destination longitude.") { v, s, _ in
            let field = try v.string()
            s.base.pointArcs = PointArcs(latField: s.base.pointArcs?.latField ?? "", lonField: field)
        },
        RenderOption("circle-radius", .value(valueName: "distance"),
                     #"Draw a geodesic circle around each point: a distance with its unit (500m, 2.5km), a property holding metres (or text like "2km"), or an expression giving them; filled and outlined by the style's fill layer. Rows whose radius is missing, negative or over 10000 km are skipped and counted."#) { v, s, c in
            s.base.pointCircles = try circleRadius(v, file: c.file, path: c.path)
        },
        RenderOption("number-markers", .flag,
                     "Number the points 1, 2, 3 ... inside their markers, in input order or by --order-by (with --line-by, each line from 1); the marker grows to fit its number.") { v, s, _ in
            s.base.numberMarkers = try v.bool()
        },
        RenderOption("id-field", .value(valueName: "name"),
                     "Property or column holding each point's id (default: the feature id, or a column named id).") { v, s, _ in
            s.base.inputOptions.idField = try v.string()
        },
        RenderOption("delimiter", .value(valueName: "char"),
                     "CSV delimiter: ',', ';', '|', 'tab' or '\\t' (default: detected from the header).") { v, s, _ in
            switch v.text {
            case ","?: s.base.inputOptions.delimiter = UInt8(ascii: ",")
            case ";"?: s.base.inputOptions.delimiter = UInt8(ascii: ";")
            case "|"?: s.base.inputOptions.delimiter = UInt8(ascii: "|")
            case "tab"?, "\\t"?, "\t"?: s.base.inputOptions.delimiter = UInt8(ascii: "\t")
            default: throw v.fail("expected ',', ';', '|' or 'tab', got \(v.shown)")
            }
        },
        RenderOption("wrap-longitude", .flag,
                     "Accept longitudes in 0...360 (as in earthquake catalogues) and normalise them.") { v, s, _ in
            s.base.inputOptions.wrapLongitude = try v.bool()
        },
        RenderOption("max-memory", .value(valueName: "MB"), default: "8192", request: .server,
                     "Refuse a render (or cluster, inspect) whose memory, estimated before reading (image, GeoJSON files, CSV rows; standard input as it is read), exceeds this many MB (1...\(1 << 30)); what is left bounds the decoded tiles of --tiles and --basemap-style.") { v, s, _ in
            s.base.maxMemory = try v.integer(1...(1 << 30)) << 20
        },
    ]

    public static let map: [RenderOption] = [
        RenderOption("size", .value(valueName: "WxH"), default: "1024x768",
                     "Image (or frame) size in CSS pixels, each side 1...\(sizeLimit).") { v, s, _ in
            (s.base.width, s.base.height) = try size(v)
        },
        RenderOption("scale", .value(valueName: "n"), default: "1",
                     "Pixel density in 0.1...8: 2 draws the same map with twice the pixels per side (HiDPI).") { v, s, _ in
            s.base.scale = try v.number(0.1...8)
        },
        RenderOption("style", .value(valueName: "file"), request: .named,
                     "Style file (JSON; see styles/default.json and the README).") { v, s, c in
            let path = try c.file(v, option: "style")
            s.style = try c.files.style(path)
            s.styleFile = path
        },
        RenderOption("background", .value(valueName: "colour"),
                     "Background colour (#rrggbb, #rrggbbaa, rgba(...)); overrides the style.") { v, s, _ in
            guard let t = v.text, let c = RGBA.parse(t) else {
                throw v.fail("expected a colour like \"#rrggbb\", \"#rrggbbaa\" or \"rgba(r,g,b,a)\", got \(v.shown)")
            }
            s.background = c
        },
        RenderOption("marker", .value(valueName: "shape"),
                     "Marker shape: pin, circle or square, at its default size (28, 12, 11 px) unless --marker-size; overrides the style.") { v, s, _ in
            s.marker = try v.choice(Style.MarkerShape.allCases.map(\.rawValue)) { Style.MarkerShape(rawValue: $0) }
        },
        RenderOption("marker-size", .value(valueName: "px"),
                     "Marker size in CSS pixels, 1...256 (pin height, circle or square width); overrides the style.") { v, s, _ in
            s.markerSize = try v.number(1...256)
        },
        RenderOption("marker-icon", .value(valueName: "file"), request: .file,
                     "Draw this PNG or SVG file at each point instead of the marker shape, at its own size (SVG width and height, PNG pixels as CSS px) times the style's marker.icon-size, anchored at its bottom when it narrows to a point there (a pin), else at its centre (the style's marker.icon-anchor overrides); overrides the style's marker.icon. An icon is at most \(Int(IconLoader.maxDrawnSize)) px a side and its file at most \(IconLoader.maxFileBytes >> 20) MB.") { v, s, c in
            let path = try c.file(v, option: "marker-icon")
            _ = try IconLoader.load(file: path)   // a bad file stops here, named
            s.markerIcon = path
        },
        RenderOption("center", .value(valueName: "lat,lon"),
                     "Center of the view; with --zoom, that zoom; alone, the zoom that shows all the data around it.") { v, s, _ in
            guard let p = v.numbers(), p.count == 2, p.allSatisfy(\.isFinite), abs(p[0]) <= 90, abs(p[1]) <= 180 else {
                throw v.fail("expected LAT,LON with |lat| <= 90 and |lon| <= 180, got \(v.shown)")
            }
            s.center = (p[0], p[1])
        },
        RenderOption("zoom", .value(valueName: "z"),
                     "Zoom level, 0...\(Int(zoomLimit)) (fractional; MapLibre convention, 512 px tiles). Alone, it keeps the fitted center.") { v, s, _ in
            s.zoom = try v.number(0...zoomLimit)
        },
        RenderOption("bbox", .value(valueName: "W,S,E,N"),
                     "Show this box in degrees; west > east crosses the antimeridian.") { v, s, _ in
            s.bbox = try bbox(v)
        },
        RenderOption("cluster", .offFlag, "Draw every point; do not merge nearby points into bubbles.") { v, s, _ in
            s.cluster = try v.bool()
        },
        RenderOption("spread-tolerance", .value(valueName: "px"), default: "0",
                     "Spread pins closer than this many pixels (0...500) around their shared point (0: only exactly equal coordinates).") { v, s, _ in
            s.base.spread.tolerance = try v.number(0...500)
        },
        RenderOption("spread-max", .value(valueName: "n"), default: "50",
                     "A colocated group larger than this (at least 2) is drawn as a bubble, not spread.") { v, s, _ in
            s.base.spread.maximum = try v.integer(2...1_000_000)
        },
        RenderOption("padding", .value(valueName: "px"), default: "24",
                     "Margin around the data when fitting, in CSS pixels (0...1000).") { v, s, _ in
            s.base.padding = try v.number(0...1000)
        },
        RenderOption("basemap", .list(valueName: "file"), request: .file, "GeoJSON polygons and lines to draw under the markers (repeatable).") { v, s, c in
            s.base.basemaps = try v.strings().map { try c.files.readableFile($0) }
        },
        RenderOption("basemap-style", .value(valueName: "file"),
                     "MapLibre style (spec v8) drawn as the basemap instead of the built-in land: vector tiles (pmtiles://, mbtiles://, a TileJSON url, tiles: [template]), raster tiles and GeoJSON sources; background, fill, line, circle, raster and symbol layers, icons and fill patterns from a local sprite. Unsupported properties are listed on stderr and in --summary.") { v, s, c in
            let path = try c.files.readableFile(try v.string())
            s.base.basemapStyle = try c.files.basemapStyle(path)
        },
        RenderOption("no-basemap", .flag,
                     "Without --basemap, draw no land: the embedded Natural Earth countries (1:110m, 1:50m from zoom 3) are drawn by default.") { v, s, _ in
            s.base.defaultBasemap = !(try v.bool())
        },
        RenderOption("attribution", .value(valueName: "text"), "Attribution text in the bottom-right corner.") { v, s, _ in
            s.base.layout.attribution = try v.string()
        },
        RenderOption("filter", .value(valueName: "expression"),
                     #"Draw only points for which this MapLibre expression (JSON) is true, e.g. '["==", ["get", "country"], "FR"]', or one comparison: 'country == "FR"'. A property the input lacks is an error; ["zoom"] cannot be used."#) { v, s, c in
            let f = try FeatureFilter(v, file: c.file, path: c.path)
            s.base.filter = f.expression
            s.filterSource = f.source
        },
        RenderOption("label", .value(valueName: "field"), "Property to label each marker with.") { v, s, _ in
            s.base.layout.labelField = try v.string()
        },
        RenderOption("label-priority", .value(valueName: "field"),
                     "Numeric property ranking labels: larger values win a contested place (e.g. population).") { v, s, _ in
            s.base.layout.labelPriority = try v.string()
        },
        RenderOption("text-padding", .value(valueName: "px"), default: "2",
                     "Least gap between two labels, CSS px, 0...100 (as MapLibre's text-padding keeps labels apart), so neighbours never read as one name; overrides the style's label.text-padding.") { v, s, _ in
            s.textPadding = try v.number(0...100)
        },
        RenderOption("label-style", .value(valueName: "style"), default: "plain",
                     "plain (text with a halo) or callout (a box with a pointer to its pin or bubble, wrapped text).") { v, s, _ in
            s.base.layout.labelStyle = try v.choice(["plain", "callout"]) { LayoutOptions.LabelStyle(rawValue: $0) }
        },
        RenderOption("allow-overlap", .flag,
                     "Place every label at its first position even if it overlaps others (default: labels that do not fit are dropped and counted).") { v, s, _ in
            s.base.layout.allowOverlap = try v.bool()
        },
        RenderOption("scale-bar", .flag, "Draw a metric and imperial scale bar (bottom left).") { v, s, _ in
            s.base.layout.scaleBar = try v.bool()
        },
        RenderOption("legend", .flag,
                     "Draw a legend of the marker colours when the style's marker fill is a match or step expression (top right); a warning otherwise.") { v, s, _ in
            s.base.layout.legend = try v.bool()
        },
        RenderOption("text-scale", .value(valueName: "f"), default: "1",
                     "Scale text independently of --scale, in (0, 10].") { v, s, _ in
            s.base.layout.textScale = try v.number(0...10, openLow: true)
        },
        RenderOption("allow-empty", .flag,
                     "Write the map even when no point is left after reading and --filter (default: exit 65 and keep the old output).") { v, s, _ in
            s.base.allowEmpty = try v.bool()
        },
        RenderOption("strict", .flag,
                     "Make expression results that cannot be used (a marker size out of range, a fill that is not a colour) and input text that is not valid UTF-8 errors instead of warnings.") { v, s, _ in
            s.base.strict = try v.bool()
        },
        RenderOption("quality", .value(valueName: "1-100"), default: "\(OutputFormat.defaultQuality)",
                     "JPEG and WebP quality, 1...100; for WebP, 100 is lossless. PNG, SVG and PDF ignore it.") { v, s, _ in
            s.base.quality = try v.integer(1...100)
        },
        RenderOption("system-fonts", .flag,
                     "Draw text with the machine's fonts (its fontconfig setup) instead of the fonts maprender pins: DejaVu Sans, Droid Sans Fallback, WenQuanYi Zen Hei and Lohit Devanagari, as scripts/setup installs them, so that a map has the same bytes on every machine. A FONTCONFIG_FILE set in the environment is used as given.") { v, s, _ in
            s.base.systemFonts = try v.bool()
        },
    ]

    public static let clustering: [RenderOption] = [
        RenderOption("cluster-radius", .value(valueName: "px"), default: "40",
                     "Cluster radius in pixels at extent 512, as supercluster (0...1000).") { v, s, _ in
            s.clusterOptions.radius = try v.number(0...1000)
        },
        RenderOption("min-points", .value(valueName: "n"), default: "2",
                     "Fewest points that make a cluster (at least 2).") { v, s, _ in
            s.clusterOptions.minPoints = try v.integer(2...1_000_000)
        },
        RenderOption("max-zoom", .value(valueName: "z"), default: "16",
                     "Highest zoom (0...\(Int(zoomLimit))): clusters form up to this zoom, and a fitted view never zooms further in.") { v, s, _ in
            s.clusterOptions.maxZoom = try v.integer(0...Int(zoomLimit))
        },
        aggregate("cluster-sum", "sum", "Give clusters a sum_FIELD property: the sum of FIELD over their points (repeatable).") { .sum(field: $0) },
        aggregate("cluster-max", "max", "Give clusters a max_FIELD property (repeatable).") { .max(field: $0) },
        aggregate("cluster-min", "min", "Give clusters a min_FIELD property (repeatable).") { .min(field: $0) },
        aggregate("cluster-mean", "mean", "Give clusters a mean_FIELD property (repeatable).") { .mean(field: $0) },
    ]

    static func aggregate(_ name: String, _ kind: String, _ help: String,
                          _ make: @escaping @Sendable (String) -> ClusterAggregate) -> RenderOption {
        RenderOption(name, .list(valueName: "field"), help) { v, s, _ in
            s.aggregates[name] = try v.strings().map(make)
        }
    }

    // MARK: - Values with a shape of their own

    /// `--circle-radius`: `500m`, `2.5km` (a unit is required: a bare word is a property name),
    /// an expression (text starting with `[`, or a manifest list) or a property name.
    static func circleRadius(_ v: OptionValue, file: String, path: String) throws -> PointCircles {
        if case .manifest(let m) = v.source, case .array = m {
            return PointCircles(radius: .expression(try StyleExpression.parse(m.jsonObject, file: file, path: path)))
        }
        if case .manifest(.number(let d)) = v.source {
            throw v.fail("expected a distance with its unit (500m, 2.5km), a property name or an expression, got \(d) (metres: \(PropertyValue.format(number: d))m)")
        }
        let text = try v.string().trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[") {
            return PointCircles(radius: .expression(try StyleExpression.parse(jsonText: text, file: file, path: path, expecting: .any)))
        }
        if let first = text.first, first.isNumber || first == "-" || first == "+" || first == "." {
            guard let m = PointCircles.distance(text, bareIsMetres: false) else {
                throw v.fail("expected a distance with its unit (500m, 2.5km), a property name or an expression, got \(v.shown)")
            }
            guard m > 0 else { throw v.fail("the radius must be more than 0, got \(v.shown)") }
            guard m <= PointCircles.maxRadius else { throw v.fail("the radius must be at most 10000km, got \(v.shown)") }
            return PointCircles(radius: .metres(m))
        }
        return PointCircles(radius: .expression(try StyleExpression.parse(["get", text], file: file, path: path)))
    }

    /// `WxH`, each side a whole number in 1...16384.
    static func size(_ v: OptionValue) throws -> (Double, Double) {
        let parts = v.text?.lowercased().split(separator: "x", omittingEmptySubsequences: false) ?? []
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw v.fail("expected a size like \"1024x768\", got \(v.shown)")
        }
        guard (1...sizeLimit).contains(w), (1...sizeLimit).contains(h) else {
            throw v.fail("width and height must each be in 1...\(sizeLimit), got \(v.shown)")
        }
        return (Double(w), Double(h))
    }

    /// `W,S,E,N` in degrees, checked as `--bbox` is (for `cluster`'s own `--bbox`).
    public static func bbox(_ text: String) throws -> GeoBounds { try bbox(OptionValue(word: text)) }

    /// `W,S,E,N` (or a manifest list) in degrees; W > E crosses the antimeridian. Each fault is
    /// named: the shape, a coordinate out of range, W == E, S >= N.
    static func bbox(_ v: OptionValue) throws -> GeoBounds {
        guard let p = v.numbers(), p.count == 4 else { throw v.fail("expected W,S,E,N in degrees, got \(v.shown)") }
        let (w, s, e, n) = (p[0], p[1], p[2], p[3])
        guard [w, e].allSatisfy({ $0.isFinite && abs($0) <= 180 }) else {
            throw v.fail("W and E must be in -180...180, got \(v.shown)")
        }
        guard [s, n].allSatisfy({ $0.isFinite && abs($0) <= 90 }) else {
            throw v.fail("S and N must be in -90...90, got \(v.shown)")
        }
        guard w != e else { throw v.fail("W and E are equal, so the box has no width, got \(v.shown)") }
        guard s < n else { throw v.fail("S must be less than N, got \(v.shown)") }
        return GeoBounds(west: w, south: s, east: e, north: n)
    }
}

// MARK: - The command line

extension RenderOptionTable {
    /// Builds the request from the options given on a command line, by long name (`no-cluster`,
    /// `size`); options not given are absent. Every value goes through its table entry; a bad
    /// value is the entry's message after the option (`--size: expected a size like ...`), a
    /// combination problem names the options (`--center needs --zoom`); a file's own error
    /// (`cannot read x.json: no such file`, a style's key path) is passed on as it is.
    public static func request(commandLine given: [(name: String, value: OptionValue)],
                               files: OptionFiles = OptionFiles()) throws -> RenderRequest {
        var settings = RenderSettings()
        for (name, value) in given {
            guard let option = option(named: name) else {
                throw MapRenderError(.internal, "--\(name) is not in the option table")
            }
            var v = value
            if option.form == .offFlag, case .flag(let on) = value.source { v = OptionValue(flag: !on) }
            let context = OptionContext(files: files, file: "--\(name)", path: option.name)
            do {
                try option.apply(v, to: &settings, context: context)
            } catch let e as MapRenderError where e.kind == .usage {
                // Files and styles name themselves (`cannot read x.json: no such file`).
                throw MapRenderError(e.kind, e.message.hasPrefix("--\(name): ") ? e.message : "--\(name): \(e.message)")
            }
        }
        if let p = settings.problems(spell: { "--\($0)" }).first { throw MapRenderError(.usage, p) }
        return settings.request()
    }
}
