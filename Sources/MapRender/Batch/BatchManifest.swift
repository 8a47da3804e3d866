import Foundation
import MapRenderCore

/// Many maps described in one file: shared `defaults` and a list of `jobs`, each a render.
///
/// ```json
/// {
///   "defaults": { "input": "cities.csv", "basemap": "countries.geojson", "size": "800x600" },
///   "jobs": [
///     { "output": "out/fr.png", "filter": ["==", ["get", "country"], "FR"] },
///     { "output": "out/de.svg", "filter": ["==", ["get", "country"], "DE"], "label": "name" }
///   ]
/// }
/// ```
/// YAML says the same with the same keys. Keys are the long names of `maprender render`'s
/// options (`size`, `max-zoom`, `cluster-sum`, ...), plus `filter` and `cluster: false` for
/// `--no-cluster`. A job's key replaces the same key of `defaults`. Relative paths are relative
/// to the manifest's folder.
///
/// `load` and `parse` check everything before anything renders — every key, every value, that
/// each input, basemap and style file can be read, that each style is valid — and throw one
/// `BatchManifestError` with every problem found, each naming the job and key:
/// `jobs.json: jobs[3].sise: unknown key; did you mean 'size'?`.
public struct BatchManifest: Sendable {
    /// The manifest's path as given, used in messages and the report.
    public var name: String
    public var jobs: [BatchJob]

    /// A manifest built in code (library use).
    public init(name: String = "batch", jobs: [BatchJob]) {
        self.name = name
        self.jobs = jobs
    }

    /// Reads and checks a JSON or YAML manifest (YAML for `.yaml`/`.yml`, JSON for `.json`, else by
    /// its first character).
    /// Every key a job (or `defaults`) may have: `render`'s long option names, plus `filter` and `cluster`.
    public static var jobKeys: [String] { ManifestReader.jobKeys }

    public static func load(path: String) throws -> BatchManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BatchManifestError(issues: [MapRenderError(.inputUnreadable,
                                                             "cannot read manifest \(path): no such file or not readable")])
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(data: data, name: path, baseDirectory: folder)
    }

    /// Checks a manifest held in memory. `name` appears in messages (and picks JSON or YAML by
    /// its extension); relative paths resolve against `baseDirectory`.
    public static func parse(data: Data, name: String, baseDirectory: String) throws -> BatchManifest {
        let root: ManifestValue
        do {
            root = try ManifestValue.parse(data, syntax: ManifestValue.syntax(name: name, data: data))
        } catch let e as ManifestSyntaxError {
            throw BatchManifestError(issues: [MapRenderError(.style, "\(name): \(e.message)")])
        }
        var reader = ManifestReader(name: name, baseDirectory: URL(fileURLWithPath: baseDirectory, isDirectory: true))
        let jobs = reader.read(root)
        if !reader.issues.isEmpty { throw BatchManifestError(issues: reader.issues) }
        return BatchManifest(name: name, jobs: jobs)
    }
}

/// One map of a batch.
public struct BatchJob: Sendable {
    /// Position in the manifest's `jobs` list, from 0. Shards and reports use it.
    public var index: Int
    /// Where the map is written (atomically; missing folders are created).
    public var output: String
    /// The render. `inputs` and `inputOptions` say which points to read; the runner reads each
    /// input once for all jobs and sets `points` to the filtered points.
    public var request: RenderRequest
    /// Keeps the points of the inputs for which it gives `true`; nil keeps them all.
    public var filter: BatchFilter?
    /// The style file, whose bytes count in the `--skip-unchanged` hash (inputs and basemaps are
    /// taken from `request`).
    public var styleFile: String?
    /// The job's options as normalised text; with the bytes of its files it makes the hash that
    /// `--skip-unchanged` compares.
    public var fingerprint: String

    /// A job built in code. Without a `fingerprint`, one is made from the request and the filter;
    /// it never misses a change, but may differ between processes when the request holds hashed
    /// collections, so `skipUnchanged` may render such a job again: give a fingerprint naming the
    /// options to avoid that.
    public init(index: Int, output: String, request: RenderRequest, filter: BatchFilter? = nil,
                styleFile: String? = nil, fingerprint: String? = nil) {
        self.index = index
        self.output = output
        self.request = request
        self.filter = filter
        self.styleFile = styleFile
        var r = request
        r.points = nil
        self.fingerprint = fingerprint ?? "request:\(String(reflecting: r))\nfilter:\(filter?.source ?? "none")"
    }
}

/// A filter expression with its normalised JSON text.
///
/// The syntax is MapLibre's expressions, as in the style format: `["==", ["get", "country"], "FR"]`,
/// `["all", [">=", ["get", "population"], 1e6], ["in", ["get", "country"], ["literal", ["FR", "DE"]]]]`.
/// A point is kept when the expression gives `true`; `zoom` cannot be used (points are selected
/// before the view is known).
public struct BatchFilter: Sendable {
    public var expression: StyleExpression
    /// Compact JSON of the expression, as hashed by `--skip-unchanged`.
    public var source: String

    /// Parses JSON text: `["==", ["get", "country"], "FR"]`, or one comparison: `country == "FR"`.
    public init(jsonText: String) throws {
        try self.init(OptionValue(word: jsonText), file: "filter", path: "filter")
    }

    init(expression: StyleExpression, source: String) {
        self.expression = expression
        self.source = source
    }

    /// The one reading of a filter, for `render --filter` and a manifest's `filter`: an
    /// expression (a manifest list, or text starting with `[`), or text with one comparison.
    init(_ given: OptionValue, file: String, path: String) throws {
        var value: ManifestValue
        switch given.source {
        case .manifest(let v): value = v
        default: value = .string(given.text ?? "")
        }
        if case .string(let text) = value {
            if text.drop(while: { $0 == " " }).hasPrefix("[") {
                let data = Data(text.utf8)
                do {
                    value = ManifestValue(json: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
                } catch {
                    throw MapRenderError(.style, "\(file): \(path): not valid JSON: \(Style.describeJSONError(error, in: data))")
                }
            } else if let converted = Self.simpleComparison(text) {
                value = converted
            } else {
                throw MapRenderError(.style, "\(file): \(path): expected an expression like [\"==\", [\"get\", \"country\"], \"FR\"] "
                                     + "or a comparison like country == \"FR\", got \(given.shown)")
            }
        }
        guard case .array = value else {
            throw MapRenderError(.style, "\(file): \(path): expected an expression like [\"==\", [\"get\", \"country\"], \"FR\"], got \(value.shown)")
        }
        let e = try StyleExpression.parse(value.jsonObject, file: file, path: path, expecting: .boolean)
        guard e.isZoomConstant else {
            throw MapRenderError(.style, "\(file): \(path): a filter cannot use [\"zoom\"]: points are chosen before the view")
        }
        expression = e
        source = value.canonicalText
    }

    /// `FIELD OP VALUE` with OP one of `== != < <= > >=` and VALUE a quoted string, a number,
    /// `true` or `false`: the one-comparison shorthand, turned into the expression array.
    static func simpleComparison(_ text: String) -> ManifestValue? {
        let pattern = #"^\s*([A-Za-z_][A-Za-z0-9_.:-]*)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$"#
        guard let re = try? NSRegularExpression(pattern: pattern),
              let m = re.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), m.numberOfRanges == 4,
              let f = Range(m.range(at: 1), in: text), let o = Range(m.range(at: 2), in: text),
              let v = Range(m.range(at: 3), in: text) else { return nil }
        let raw = String(text[v])
        let value: ManifestValue
        if raw.count >= 2, let q = raw.first, q == "\"" || q == "'", raw.last == q {
            let inner = raw.dropFirst().dropLast()
            guard !inner.contains(q) else { return nil }
            value = .string(String(inner))
        } else if raw == "true" || raw == "false" {
            value = .bool(raw == "true")
        } else if let d = Double(raw), d.isFinite {
            value = .number(d)
        } else {
            return nil
        }
        return .array([.string(String(text[o])), .array([.string("get"), .string(String(text[f]))]), value])
    }
}

/// Every problem found in a manifest, one line each, in file order.
public struct BatchManifestError: Error, CustomStringConvertible, Sendable {
    public var issues: [MapRenderError]

    public init(issues: [MapRenderError]) { self.issues = issues }

    public var description: String { issues.map(\.message).joined(separator: "\n") }

    /// The problems' exit code when they all have the same one (66 when only files are missing),
    /// else 78 (a bad manifest).
    public var exitCode: Int32 {
        let codes = Set(issues.map(\.exitCode))
        return codes.count == 1 ? codes.first! : 78
    }
}
