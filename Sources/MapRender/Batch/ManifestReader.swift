import Foundation
import MapRenderCore

/// Walks a manifest's values with the key path of each, collecting every problem instead of
/// stopping at the first, and turns each job into a `BatchJob`.
struct ManifestReader {
    let name: String
    let baseDirectory: URL
    private(set) var issues: [MapRenderError] = []
    private var styles: [String: Result<Style, MapRenderError>] = [:]
    private var fileProblems: [String: String?] = [:]

    init(name: String, baseDirectory: URL) {
        self.name = name
        self.baseDirectory = baseDirectory
    }

    static let topKeys = ["defaults", "jobs"]

    /// Every key a job (or `defaults`) may have: `render`'s long option names, plus `filter` and `cluster`.
    static let jobKeys = [
        "output", "input", "format", "input-format", "lat", "lon", "id-field", "delimiter", "wrap-longitude",
        "size", "scale", "style", "background", "marker", "marker-size", "center", "zoom", "bbox", "max-zoom",
        "padding", "basemap", "no-basemap", "attribution", "label", "label-priority", "label-style", "allow-overlap",
        "scale-bar", "legend", "text-scale", "cluster", "cluster-radius", "min-points",
        "cluster-sum", "cluster-max", "cluster-min", "cluster-mean", "spread-tolerance", "spread-max", "filter",
    ]

    mutating func read(_ root: ManifestValue) -> [BatchJob] {
        guard case .object(let top) = root else {
            report(.style, "(top level)", "expected an object with 'jobs' (and optional 'defaults'), got \(root.shown)")
            return []
        }
        checkKeys(top.map(\.key), allowed: Self.topKeys, at: "")
        var base = JobSpec()
        if let d = top.first(where: { $0.key == "defaults" })?.value {
            if case .object(let pairs) = d {
                apply(pairs, at: "defaults", to: &base)
                base.failedKeys.remove("output") // reported once; each job must still have its own
            } else {
                report(.style, "defaults", "expected an object, got \(d.shown)")
            }
        }
        guard let jobsValue = top.first(where: { $0.key == "jobs" })?.value else {
            report(.style, "(top level)", "missing key 'jobs': the list of maps to render")
            return []
        }
        guard case .array(let list) = jobsValue else {
            report(.style, "jobs", "expected a list of jobs, got \(jobsValue.shown)")
            return []
        }
        if list.isEmpty { report(.style, "jobs", "the list is empty") }

        var jobs: [BatchJob] = []
        var outputs: [String: Int] = [:]
        for (i, item) in list.enumerated() {
            let at = "jobs[\(i)]"
            guard case .object(let pairs) = item else {
                report(.style, at, "expected an object with 'output' and render options, got \(item.shown)")
                continue
            }
            var spec = base
            let before = issues.count
            apply(pairs, at: at, to: &spec)
            guard let job = finish(spec, index: i, at: at), issues.count == before else { continue }
            if let first = outputs[job.output] {
                report(.style, "\(at).output", "same output as jobs[\(first)]: \(job.output)")
                continue
            }
            outputs[job.output] = i
            jobs.append(job)
        }
        return jobs
    }

    // MARK: - Keys and values

    mutating func report(_ kind: MapRenderError.Kind, _ path: String, _ message: String) {
        issues.append(MapRenderError(kind, "\(name): \(path): \(message)"))
    }

    mutating func checkKeys(_ keys: [String], allowed: [String], at path: String) {
        for k in keys where !allowed.contains(k) {
            let at = path.isEmpty ? k : "\(path).\(k)"
            if let s = KeySuggestion.closest(to: k, among: allowed) {
                report(.style, at, "unknown key; did you mean '\(s)'?")
            } else {
                report(.style, at, "unknown key; expected one of: \(allowed.joined(separator: ", "))")
            }
        }
    }

    /// Applies each known key of `pairs` to `spec`; a bad value is reported and leaves the key unset.
    mutating func apply(_ pairs: [(key: String, value: ManifestValue)], at path: String, to spec: inout JobSpec) {
        checkKeys(pairs.map(\.key), allowed: Self.jobKeys, at: path)
        for (key, value) in pairs where Self.jobKeys.contains(key) {
            let at = "\(path).\(key)"
            do {
                if key == "output" && path == "defaults" {
                    throw MapRenderError(.style, "each job needs its own output: set it in the jobs")
                }
                try set(key, value, at: at, on: &spec)
                spec.canonical[key] = canonical(key, value)
            } catch let e as MapRenderError {
                spec.failedKeys.insert(key)
                // Messages of nested readers (styles, expressions) already name their file and path.
                let message = e.message.hasPrefix("\(name): ") ? e.message : "\(name): \(at): \(e.message)"
                issues.append(MapRenderError(e.kind, message))
            } catch {
                report(.internal, at, "\(error)")
            }
        }
    }

    /// The value as hashed: paths resolved (so moving the manifest's working folder does not matter).
    func canonical(_ key: String, _ value: ManifestValue) -> String {
        switch key {
        case "input", "basemap", "style":
            let paths = (try? strings(value)) ?? []
            return paths.map { ManifestValue.quote(resolve($0)) }.joined(separator: ",")
        default:
            return value.canonicalText
        }
    }

    mutating func set(_ key: String, _ v: ManifestValue, at: String, on s: inout JobSpec) throws {
        switch key {
        case "output":
            let p = try string(v)
            guard p != "-" else { throw fail("a batch cannot write to standard output") }
            s.output = resolve(p)
        case "input":
            let paths = try strings(v)
            guard !paths.contains("-") else { throw fail("a batch cannot read standard input") }
            s.inputs = try paths.map { try readableFile($0) }
        case "basemap":
            s.basemaps = try strings(v).map { try readableFile($0) }
        case "style":
            let path = try readableFile(try string(v))
            _ = try style(path)
            s.style = path
        case "format":
            let f = try string(v)
            guard let fmt = OutputFormat(rawValue: f.lowercased()) else { throw fail("expected png, svg or pdf, got \(v.shown)") }
            s.format = fmt
        case "input-format":
            let f = try string(v)
            guard let fmt = InputOptions.Format(rawValue: f.lowercased()) else { throw fail("expected csv or geojson, got \(v.shown)") }
            s.inputFormat = fmt
        case "lat": s.lat = try string(v)
        case "lon": s.lon = try string(v)
        case "id-field": s.idField = try string(v)
        case "delimiter":
            switch try string(v) {
            case ",": s.delimiter = UInt8(ascii: ",")
            case ";": s.delimiter = UInt8(ascii: ";")
            case "|": s.delimiter = UInt8(ascii: "|")
            case "tab", "\\t", "\t": s.delimiter = UInt8(ascii: "\t")
            default: throw fail("expected ',', ';', '|' or 'tab', got \(v.shown)")
            }
        case "wrap-longitude": s.wrapLongitude = try bool(v)
        case "size":
            guard case .string(let text) = v, let (w, h) = Self.parseSize(text) else {
                throw fail("expected a size like \"800x600\", got \(v.shown)")
            }
            guard w <= 16384, h <= 16384 else { throw fail("expected at most 16384x16384, got \(v.shown)") }
            (s.width, s.height) = (w, h)
        case "scale": s.scale = try number(v, 0...8, openLow: true)
        case "background":
            guard case .string(let text) = v, let c = RGBA.parse(text) else {
                throw fail("expected a colour like \"#rrggbb\", \"#rrggbbaa\" or \"rgba(r,g,b,a)\", got \(v.shown)")
            }
            s.background = c
        case "marker":
            guard case .string(let text) = v, let m = Style.MarkerShape(rawValue: text) else {
                throw fail("expected pin, circle or square, got \(v.shown)")
            }
            s.marker = m
        case "marker-size": s.markerSize = try number(v, 1...256)
        case "center":
            s.center = try latLon(v)
        case "zoom": s.zoom = try number(v, 0...24)
        case "bbox": s.bbox = try bbox(v)
        case "max-zoom": s.maxZoom = try integer(v, 0...24)
        case "padding": s.padding = try number(v, 0...1000)
        case "attribution": s.attribution = try string(v)
        case "label": s.label = try string(v)
        case "label-priority": s.labelPriority = try string(v)
        case "label-style":
            guard case .string(let text) = v, let style = LayoutOptions.LabelStyle(rawValue: text) else {
                throw fail("expected plain or callout, got \(v.shown)")
            }
            s.labelStyle = style
        case "allow-overlap": s.allowOverlap = try bool(v)
        case "no-basemap": s.noBasemap = try bool(v)
        case "scale-bar": s.scaleBar = try bool(v)
        case "legend": s.legend = try bool(v)
        case "text-scale": s.textScale = try number(v, 0...10, openLow: true)
        case "cluster": s.cluster = try bool(v)
        case "cluster-radius": s.clusterRadius = try number(v, 0...1000)
        case "min-points": s.minPoints = try integer(v, 2...1_000_000)
        case "cluster-sum": s.sums = try strings(v)
        case "cluster-max": s.maxs = try strings(v)
        case "cluster-min": s.mins = try strings(v)
        case "cluster-mean": s.means = try strings(v)
        case "spread-tolerance": s.spreadTolerance = try number(v, 0...500)
        case "spread-max": s.spreadMax = try integer(v, 2...1_000_000)
        case "filter": s.filter = try BatchFilter(v, file: name, path: at)
        default: throw MapRenderError(.internal, "key not handled")
        }
    }

    /// Cross-key checks and the `RenderRequest`, as `maprender render` builds it.
    mutating func finish(_ s: JobSpec, index: Int, at: String) -> BatchJob? {
        guard let output = s.output else {
            if !s.failedKeys.contains("output") { report(.style, at, "missing key 'output'") }
            return nil
        }
        var ok = true
        if s.inputs.isEmpty && !s.failedKeys.contains("input") {
            report(.style, at, "no input: give 'input' in the job or in 'defaults'")
            ok = false
        }
        if s.center != nil && s.zoom == nil {
            report(.style, at, "'center' needs 'zoom'")
            ok = false
        }
        if s.bbox != nil && (s.center != nil || s.zoom != nil) {
            report(.style, at, "'bbox' cannot be combined with 'center' or 'zoom'")
            ok = false
        }
        if s.width * s.scale > 32767 || s.height * s.scale > 32767 {
            report(.style, at, "the image would be more than 32767 pixels per side ('size' times 'scale')")
            ok = false
        }
        let format = s.format ?? OutputFormat(path: output)
        if format == nil && !s.failedKeys.contains("format") {
            report(.style, "\(at).output", "cannot tell the format from '\(output)': use .png, .svg or .pdf, or 'format'")
            ok = false
        }
        guard ok, let format else { return nil }

        var r = RenderRequest()
        r.inputs = s.inputs
        r.inputOptions.format = s.inputFormat
        r.inputOptions.latField = s.lat
        r.inputOptions.lonField = s.lon
        r.inputOptions.idField = s.idField
        r.inputOptions.delimiter = s.delimiter
        r.inputOptions.wrapLongitude = s.wrapLongitude
        if let path = s.style, case .success(let st)? = styles[path] { r.style = st }
        if let bg = s.background { r.style.background = bg }
        if let m = s.marker {
            r.style.marker.shape = m
            r.style.marker.size = m.defaultSize
        }
        if let size = s.markerSize { r.style.marker.size = size }
        r.width = s.width
        r.height = s.height
        r.scale = s.scale
        r.maxZoom = Double(s.maxZoom)
        r.clustering = s.cluster ? ClusterOptions(maxZoom: s.maxZoom, minPoints: s.minPoints, radius: s.clusterRadius) : nil
        r.aggregates = s.sums.map { .sum(field: $0) } + s.maxs.map { .max(field: $0) }
            + s.mins.map { .min(field: $0) } + s.means.map { .mean(field: $0) }
        r.spread = SpreadOptions(tolerance: s.spreadTolerance, maximum: s.spreadMax)
        r.padding = s.padding
        if let (lat, lon) = s.center, let z = s.zoom {
            r.view = .center(lat: lat, lon: lon, zoom: z)
        } else if let b = s.bbox {
            r.view = .bbox(b)
        } else {
            r.view = .fit(zoom: s.zoom)
        }
        r.basemaps = s.basemaps
        r.layout.attribution = s.attribution
        r.layout.labelField = s.label
        r.layout.labelPriority = s.labelPriority
        r.layout.labelStyle = s.labelStyle
        r.layout.allowOverlap = s.allowOverlap
        r.defaultBasemap = !s.noBasemap
        r.layout.scaleBar = s.scaleBar
        r.layout.legend = s.legend
        r.layout.textScale = s.textScale
        r.format = format

        var options = s.canonical
        options["output"] = nil
        let fingerprint = options.keys.sorted().map { "\($0)=\(options[$0]!)" }.joined(separator: "\n")
        return BatchJob(index: index, output: output, request: r, filter: s.filter, styleFile: s.style,
                        fingerprint: fingerprint)
    }

    // MARK: - Value helpers

    func fail(_ message: String) -> MapRenderError { MapRenderError(.style, message) }

    func string(_ v: ManifestValue) throws -> String {
        guard case .string(let s) = v, !s.isEmpty else { throw fail("expected a non-empty string, got \(v.shown)") }
        return s
    }

    /// A string, or a non-empty list of strings.
    func strings(_ v: ManifestValue) throws -> [String] {
        if case .string = v { return [try string(v)] }
        guard case .array(let a) = v, !a.isEmpty else { throw fail("expected a string or a list of strings, got \(v.shown)") }
        return try a.map { item in
            guard case .string(let s) = item, !s.isEmpty else {
                throw fail("expected a string or a list of strings, got \(item.shown) in the list")
            }
            return s
        }
    }

    func bool(_ v: ManifestValue) throws -> Bool {
        guard case .bool(let b) = v else { throw fail("expected true or false, got \(v.shown)") }
        return b
    }

    func number(_ v: ManifestValue, _ range: ClosedRange<Double>, openLow: Bool = false) throws -> Double {
        let shownRange = (openLow ? "(" : "") + PropertyValue.format(number: range.lowerBound)
            + (openLow ? ", " : "...") + PropertyValue.format(number: range.upperBound) + (openLow ? "]" : "")
        guard case .number(let d) = v else { throw fail("expected a number in \(shownRange), got \(v.shown)") }
        guard d.isFinite, range.contains(d), !(openLow && d == range.lowerBound) else {
            throw fail("expected a number in \(shownRange), got \(v.shown)")
        }
        return d
    }

    func integer(_ v: ManifestValue, _ range: ClosedRange<Int>) throws -> Int {
        guard case .number(let d) = v, d == d.rounded(), d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            throw fail("expected a whole number in \(range.lowerBound)...\(range.upperBound), got \(v.shown)")
        }
        return Int(d)
    }

    /// `"LAT,LON"` or `[LAT, LON]`.
    func latLon(_ v: ManifestValue) throws -> (Double, Double) {
        var parts: [Double]? = nil
        if case .string(let s) = v {
            let p = s.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            if p.allSatisfy({ $0 != nil }) { parts = p.map { $0! } }
        } else if case .array(let a) = v {
            let p = a.map { item -> Double? in if case .number(let d) = item { return d } else { return nil } }
            if p.allSatisfy({ $0 != nil }) { parts = p.map { $0! } }
        }
        guard let ps = parts, ps.count == 2, abs(ps[0]) <= 90, abs(ps[1]) <= 180 else {
            throw fail("expected \"LAT,LON\" or [LAT, LON] with |lat| <= 90 and |lon| <= 180, got \(v.shown)")
        }
        return (ps[0], ps[1])
    }

    /// `"W,S,E,N"` or `[W, S, E, N]`, in degrees; W > E crosses the antimeridian.
    func bbox(_ v: ManifestValue) throws -> GeoBounds {
        var text: String? = nil
        if case .string(let s) = v { text = s }
        if case .array(let a) = v, a.count == 4 {
            let p = a.compactMap { item -> String? in if case .number(let d) = item { return "\(d)" } else { return nil } }
            if p.count == 4 { text = p.joined(separator: ",") }
        }
        guard let t = text, let b = GeoBounds.parse(t) else {
            throw fail("expected \"W,S,E,N\" or [W, S, E, N] in degrees with S < N, got \(v.shown)")
        }
        return b
    }

    static func parseSize(_ s: String) -> (Double, Double)? {
        let parts = s.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        return (Double(w), Double(h))
    }

    // MARK: - Files

    /// The path made absolute against the manifest's folder.
    func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL.path }
        return URL(fileURLWithPath: path, relativeTo: baseDirectory).standardizedFileURL.path
    }

    /// The resolved path of a file that exists and can be read (each file checked once).
    mutating func readableFile(_ path: String) throws -> String {
        let full = resolve(path)
        if fileProblems[full] == nil {
            var isDir: ObjCBool = false
            if !FileManager.default.fileExists(atPath: full, isDirectory: &isDir) {
                fileProblems[full] = .some("cannot read \(full): no such file")
            } else if isDir.boolValue {
                fileProblems[full] = .some("cannot read \(full): it is a folder")
            } else if !FileManager.default.isReadableFile(atPath: full) {
                fileProblems[full] = .some("cannot read \(full): permission denied")
            } else {
                fileProblems[full] = .some(nil)
            }
        }
        if case .some(.some(let problem)) = fileProblems[full] { throw MapRenderError(.inputUnreadable, problem) }
        return full
    }

    /// Each style file is read and checked once, however many jobs use it.
    mutating func style(_ path: String) throws -> Style {
        if styles[path] == nil {
            do {
                styles[path] = .success(try Style.load(path: path))
            } catch let e as MapRenderError {
                styles[path] = .failure(e)
            }
        }
        switch styles[path]! {
        case .success(let s): return s
        case .failure(let e): throw e
        }
    }

}

/// A job's options while its keys are read: `defaults` first, then the job's own keys.
struct JobSpec {
    var output: String?
    var inputs: [String] = []
    var format: OutputFormat?
    var inputFormat: InputOptions.Format?
    var lat: String?
    var lon: String?
    var idField: String?
    var delimiter: UInt8?
    var wrapLongitude = false
    var width = 1024.0            // CSS px
    var height = 768.0            // CSS px
    var scale = 1.0               // device pixels per CSS pixel
    var style: String?
    var background: RGBA?
    var marker: Style.MarkerShape?
    var markerSize: Double?       // CSS px
    var center: (Double, Double)? // lat, lon
    var zoom: Double?
    var bbox: GeoBounds?
    var maxZoom = 16
    var padding = 24.0            // CSS px
    var basemaps: [String] = []
    var attribution: String?
    var label: String?
    var labelPriority: String?
    var labelStyle = LayoutOptions.LabelStyle.plain
    var allowOverlap = false
    var noBasemap = false
    var scaleBar = false
    var legend = false
    var textScale = 1.0
    var cluster = true
    var clusterRadius = 40.0      // px at extent 512
    var minPoints = 2
    var sums: [String] = []
    var maxs: [String] = []
    var mins: [String] = []
    var means: [String] = []
    var spreadTolerance = 0.0     // CSS px
    var spreadMax = 50
    var filter: BatchFilter?
    /// Normalised text of each key given, for the `--skip-unchanged` hash.
    var canonical: [String: String] = [:]
    /// Keys whose value was reported as bad (so the checks across keys do not report them again).
    var failedKeys: Set<String> = []
}
