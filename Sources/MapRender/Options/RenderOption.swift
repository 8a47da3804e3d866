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

    /// The manifest key, and the long option name unless `form` is `.offFlag`.
    public let name: String
    public let form: Form
    /// Shown as "(default: ...)" after the help text.
    public let defaultText: String?
    public let summary: String
    let apply: @Sendable (OptionValue, inout RenderSettings, OptionContext) throws -> Void

    init(_ name: String, _ form: Form, default defaultText: String? = nil, _ summary: String,
         apply: @escaping @Sendable (OptionValue, inout RenderSettings, OptionContext) throws -> Void) {
        self.name = name
        self.form = form
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
}
