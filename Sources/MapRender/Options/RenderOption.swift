import Foundation
import MapRenderCore

/// One option of a render, defined once for the command line (`render`, `animate`, `cluster`,
/// `inspect`), the batch manifest and `--help`: its name, how it is written, its help text and
/// default, and how a value is parsed, range-checked and applied.
///
/// Entries live in `RenderOptionTable.options`. The CLI declares one `@Option`/`@Flag` per entry
/// whose property is the camel-cased name (`markerSize` for `marker-size`), with
/// `help: .table("marker-size")`; the manifest reader accepts the name as a key. A test checks
/// that the CLI's options and the table's entries match one to one.
public struct RenderOption: Sendable {
    public enum Form: Sendable, Equatable {
        /// `--name VALUE` / `name: value`.
        case value(valueName: String)
        /// Repeatable `--name VALUE`; a string or a list of strings in a manifest.
        case list(valueName: String)
        /// `--name` / `name: true`.
        case flag
        /// A flag spelled `--no-NAME` on the command line, `NAME: false` in a manifest.
        case offFlag
    }

    /// How `maprender serve` takes the option from a request (a query parameter, a key of a
    /// posted job): the server never reads a path, a folder or a setting of its own from one.
    public enum RequestUse: Sendable, Equatable {
        /// Any request may give it.
        case allowed
        /// It names a file; a request gives instead the name of one the server was started with
        /// (`style=dark` for `maprender serve --style dark=styles/dark.json`).
        case named
        /// It names a file or folder on the server, so a request cannot give it.
        case file
        /// A setting of the server process (memory, the tile cache, tile fetching), given when
        /// the server starts, not per request.
        case server
    }

    /// The manifest key, and the long option name unless `form` is `.offFlag`.
    public let name: String
    public let form: Form
    /// Whether and how a request to `maprender serve` may give it.
    public let requestUse: RequestUse
    /// Shown as "(default: ...)" after the help text.
    public let defaultText: String?
    public let summary: String
    let apply: @Sendable (OptionValue, inout RenderSettings, OptionContext) throws -> Void

    init(_ name: String, _ form: Form, default defaultText: String? = nil, request requestUse: RequestUse = .allowed,
         _ summary: String, apply: @escaping @Sendable (OptionValue, inout RenderSettings, OptionContext) throws -> Void) {
        self.name = name
        self.form = form
        self.requestUse = requestUse
        self.defaultText = defaultText
        self.summary = summary
        self.apply = apply
    }

    /// The long option name: `no-cluster` for the manifest's `cluster`.
    public var cliName: String { form == .offFlag ? "no-\(name)" : name }

    /// The value's placeholder in `--help` (`WxH`), nil for flags.
    public var valueName: String? {
        switch form {
        case .value(let v), .list(let v): return v
        case .flag, .offFlag: return nil
        }
    }

    /// The help text with its default.
    public var help: String {
        guard let d = defaultText else { return summary }
        return summary.hasSuffix(".") ? "\(summary.dropLast()) (default: \(d))." : "\(summary) (default: \(d))"
    }

    /// Parses, checks and applies one value; errors are bare ("expected ..., got ...") for the
    /// caller to prefix with where the value came from (`--size: `, `jobs.yaml: jobs[2].size: `).
    func apply(_ value: OptionValue, to settings: inout RenderSettings, context: OptionContext) throws {
        if context.names != nil {
            switch requestUse {
            case .allowed, .named: break
            case .file:
                throw MapRenderError(.usage, "names a file or folder on the server, which a request cannot give")
            case .server:
                throw MapRenderError(.usage, "is a setting of the server (give it when starting maprender serve), not of a request")
            }
        }
        try apply(value, &settings, context)
    }
}

/// The options of one render while they are read; `problems(spell:)` names bad combinations and
/// `request()` makes the `RenderRequest`. Options are independent of the order they are given in.
public struct RenderSettings: Sendable {
    /// Everything that does not depend on other options is set here directly.
    var base = RenderRequest()
    var style: Style?
    var background: RGBA?
    var marker: Style.MarkerShape?
    var markerSize: Double?
    /// `--marker-icon`: the file, checked (the style's icon size and anchor apply when it is drawn).
    var markerIcon: String?
    var textPadding: Double?
    var center: (lat: Double, lon: Double)?
    var zoom: Double?
    var bbox: GeoBounds?
    var cluster = true
    var clusterOptions = ClusterOptions()
    var aggregates: [String: [ClusterAggregate]] = [:]
    /// The filter's normalised text (for the batch hash).
    public internal(set) var filterSource: String?
    /// The resolved style file, if one was given.
    public internal(set) var styleFile: String?

    public init() {}

    /// Problems of combination, naming options with `spell` (`--center`, or `'center'` in a manifest).
    public func problems(spell: (String) -> String) -> [String] {
        var out: [String] = []
        if bbox != nil && (center != nil || zoom != nil) {
            out.append("\(spell("bbox")) cannot be combined with \(spell("center")) or \(spell("zoom"))")
        }
        let r = base
        if r.width * r.scale > 32767 || r.height * r.scale > 32767 {
            out.append("the image would be more than 32767 pixels per side (\(spell("size")) times \(spell("scale")))")
        }
        return out
    }

    /// The request: style, then its overrides (background, marker shape at its default size,
    /// marker size, text padding), the view, clustering. Check `problems` first.
    public func request() -> RenderRequest {
        var r = base
        if let s = style { r.style = s }
        if let bg = background { r.style.background = bg; r.backgroundGiven = true }
        if let m = marker {
            r.style.marker.shape = m
            r.style.marker.size = m.defaultSize
        }
        if let s = markerSize { r.style.marker.size = s }
        if let file = markerIcon {
            r.style.marker.icon = StyleExpression(constant: .string(file))
            r.style.marker.iconFolder = nil
            r.style.marker.icons = [:]
        }
        if let p = textPadding { r.style.label.textPadding = p }
        if let c = center, let z = zoom {
            r.view = .center(lat: c.lat, lon: c.lon, zoom: z)
        } else if let c = center {
            r.view = .fitAround(lat: c.lat, lon: c.lon)
        } else if let b = bbox {
            r.view = .bbox(b)
        } else {
            r.view = .fit(zoom: zoom)
        }
        r.maxZoom = Double(clusterOptions.maxZoom)
        r.clustering = cluster ? clusterOptions : nil
        r.aggregates = ["cluster-sum", "cluster-max", "cluster-min", "cluster-mean"].flatMap { aggregates[$0] ?? [] }
        return r
    }
}

/// Where a value came from, for options whose errors come from nested readers (a filter
/// expression's path), and how files are found.
struct OptionContext {
    var files: OptionFiles
    /// `--filter` or the manifest's name.
    var file: String
    /// `filter` or `jobs[2].filter`.
    var path: String
    /// Set when the value comes from a request to `maprender serve`: options that name files
    /// take the names of the server's own, and the others that name files are refused.
    var names: RequestNames? = nil

    /// The readable file an option names: the path as given (command line, manifest), or in a
    /// request the file the server was started with under that name.
    func file(_ v: OptionValue, option: String) throws -> String {
        let given = try v.string()
        guard let names else { return try files.readableFile(given) }
        return try files.readableFile(try names.resolve(option, given))
    }

    /// A tile source as given, or in a request the server's source of that name.
    func tileSource(_ given: String) throws -> String {
        guard let names else { return given }
        return try names.resolve("tiles", given)
    }
}

/// The files and sources a `maprender serve` request may name, by name, fixed when the server
/// starts (`--style dark=styles/dark.json`, `--tiles osm=https://...`, `--data cities=cities.csv`):
/// a request names one of them and never a path.
public struct RequestNames: Sendable {
    /// Option or key (`style`, `tiles`, `input`) -> name -> path or source.
    public var named: [String: [String: String]]

    public init(styles: [String: String] = [:], tiles: [String: String] = [:], data: [String: String] = [:]) {
        named = ["style": styles, "tiles": tiles, "input": data]
    }

    /// The path or source called `name` for `option`; else an error listing the names there are.
    public func resolve(_ option: String, _ name: String) throws -> String {
        let table = named[option] ?? [:]
        if let path = table[name] { return path }
        let what = option == "input" ? "data sets" : option == "tiles" ? "tile sources" : "\(option)s"
        let flag = option == "input" ? "--data" : "--\(option)"
        guard !table.isEmpty else {
            throw MapRenderError(.usage, "this server has no named \(what) (start it with \(flag) NAME=...), so a request cannot ask for \(ManifestValue.quote(name))")
        }
        throw MapRenderError(.usage, "expected one of the server's \(what): \(table.keys.sorted().joined(separator: ", ")), got \(ManifestValue.quote(name))")
    }
}
