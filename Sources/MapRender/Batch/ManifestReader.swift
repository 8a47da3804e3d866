import Foundation
import MapRenderCore

/// Walks a manifest's values with the key path of each, collecting every problem instead of
/// stopping at the first, and turns each job into a `BatchJob`.
struct ManifestReader {
    let name: String
    /// Paths resolve against the manifest's folder; each file is checked, each style read, once.
    let files: OptionFiles
    private(set) var issues: [MapRenderError] = []

    /// Set for a job posted to `maprender serve`: file keys take the server's names.
    let names: RequestNames?

    init(name: String, baseDirectory: URL) {
        self.name = name
        self.files = OptionFiles(baseDirectory: baseDirectory)
        self.names = nil
    }

    /// A reader of requests to `maprender serve` (`readRequest`): messages start with the key.
    init(requestNames: RequestNames, files: OptionFiles) {
        self.name = ""
        self.files = files
        self.names = requestNames
    }

    /// The keys of a posted job: a batch job's but `output`, plus `data`.
    static let requestKeys = jobKeys.filter { $0 != "output" } + ["data"]

    static let topKeys = ["defaults", "jobs"]

    /// Every key a job (or `defaults`) may have: `output`, `input` and `format`, then every
    /// option of `RenderOptionTable` by its long name (`cluster: false` for `--no-cluster`).
    static let jobKeys = ["output", "input", "format"] + RenderOptionTable.options.map(\.name)

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
        issues.append(MapRenderError(kind, name.isEmpty ? "\(path): \(message)" : "\(name): \(path): \(message)"))
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
        let allowed = names == nil ? Self.jobKeys : Self.requestKeys
        checkKeys(pairs.map(\.key), allowed: allowed, at: path)
        for (key, value) in pairs where allowed.contains(key) {
            let at = path.isEmpty ? key : "\(path).\(key)"
            do {
                if key == "output" && path == "defaults" {
                    throw MapRenderError(.style, "each job needs its own output: set it in the jobs")
                }
                try set(key, value, at: at, on: &spec)
                spec.canonical[key] = canonical(key, value)
            } catch let e as MapRenderError {
                spec.failedKeys.insert(key)
                // Messages of nested readers (styles, expressions) already name their file and path.
                let message = name.isEmpty ? "\(at): \(e.message)"
                    : e.message.hasPrefix("\(name): ") ? e.message : "\(name): \(at): \(e.message)"
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
            let paths = (try? OptionValue(value).strings()) ?? []
            return paths.map { ManifestValue.quote(files.resolve($0)) }.joined(separator: ",")
        default:
            return value.canonicalText
        }
    }

    mutating func set(_ key: String, _ v: ManifestValue, at: String, on s: inout JobSpec) throws {
        let value = OptionValue(v)
        switch key {
        case "output":
            let p = try value.string()
            guard p != "-" else { throw fail("a batch cannot write to standard output") }
            s.output = files.resolve(p)
        case "input" where names != nil:
            s.inputs = try value.strings().map { try files.readableFile(try names!.resolve("input", $0)) }
        case "data":
            s.inline = [try Self.inlineData(v)]
        case "input":
            let paths = try value.strings()
            guard !paths.contains("-") else { throw fail("a batch cannot read standard input") }
            s.inputs = try paths.map { try files.readableFile($0) }
        case "format":
            s.format = try value.choice(OutputFormat.allCases.map(\.rawValue) + ["jpg"]) { OutputFormat(rawValue: $0 == "jpg" ? "jpeg" : $0) }
        default:
            guard let option = RenderOptionTable.option(named: key), option.cliName == key || option.form == .offFlag else {
                throw MapRenderError(.internal, "key not handled")
            }
            try option.apply(value, to: &s.settings, context: OptionContext(files: files, file: name, path: at, names: names))
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
        for problem in s.settings.problems(spell: { "'\($0)'" }) {
            report(.usage, at, problem)
            ok = false
        }
        let format = s.format ?? OutputFormat(path: output)
        if format == nil && !s.failedKeys.contains("format") {
            report(.style, "\(at).output", "cannot tell the format from '\(output)': use \(OutputFormat.extensionsText), or 'format'")
            ok = false
        }
        guard ok, let format else { return nil }

        var r = s.settings.request()
        r.inputs = s.inputs
        r.format = format
        // The runner selects each job's points from the shared inputs before rendering.
        let filter = r.filter.map { FeatureFilter(expression: $0, source: s.settings.filterSource ?? "") }
        r.filter = nil

        var options = s.canonical
        options["output"] = nil
        let fingerprint = options.keys.sorted().map { "\($0)=\(options[$0]!)" }.joined(separator: "\n")
        return BatchJob(index: index, output: output, request: r, filter: filter, styleFile: s.settings.styleFile,
                        fingerprint: fingerprint)
    }

    // MARK: - Values

    func fail(_ message: String) -> MapRenderError { MapRenderError(.style, message) }
}

// MARK: - Jobs posted to `maprender serve`

extension ManifestReader {
    /// One posted job: an object of `requestKeys`, checked as a batch job's keys are; nil with
    /// `issues` when anything is wrong.
    mutating func readRequest(_ root: ManifestValue, inputs: [String]) -> RenderRequest? {
        guard case .object(let pairs) = root else {
            report(.style, "(top level)", "expected an object with render options and 'data' or 'input', got \(root.shown)")
            return nil
        }
        var spec = JobSpec()
        apply(pairs, at: "", to: &spec)
        spec.inputs = inputs + spec.inputs
        if spec.inputs.isEmpty && spec.inline.isEmpty && !spec.failedKeys.contains("input") && !spec.failedKeys.contains("data") {
            report(.style, "(top level)", "no data: give 'data' (GeoJSON as an object, or CSV or GeoJSON text) or 'input' (one of the server's data sets)")
        }
        for problem in spec.settings.problems(spell: { "'\($0)'" }) { report(.usage, "(top level)", problem) }
        guard issues.isEmpty else { return nil }
        var r = spec.settings.request()
        r.inputs = spec.inputs
        r.inlineInputs = spec.inline
        r.format = spec.format ?? .png
        return r
    }

    /// `data`: a GeoJSON object, or text (CSV, or GeoJSON when it starts with `{`).
    static func inlineData(_ v: ManifestValue) throws -> RenderRequest.InlineInput {
        switch v {
        case .object, .array:
            guard let bytes = try? JSONSerialization.data(withJSONObject: v.jsonObject, options: [.sortedKeys]) else {
                throw MapRenderError(.style, "cannot be written back as JSON")
            }
            return .init(name: "data.geojson", data: bytes)
        case .string(let text) where !text.isEmpty:
            let first = text.first { !$0.isWhitespace }
            return .init(name: first == "{" || first == "[" ? "data.geojson" : "data.csv", data: Data(text.utf8))
        default:
            throw MapRenderError(.style, "expected a GeoJSON object or CSV text, got \(v.shown)")
        }
    }
}

/// A job's options while its keys are read: `defaults` first, then the job's own keys.
struct JobSpec {
    var output: String?
    var inputs: [String] = []
    /// `data` of a posted job.
    var inline: [RenderRequest.InlineInput] = []
    var format: OutputFormat?
    /// Every option of the render table.
    var settings = RenderSettings()
    /// Normalised text of each key given, for the `--skip-unchanged` hash.
    var canonical: [String: String] = [:]
    /// Keys whose value was reported as bad (so the checks across keys do not report them again).
    var failedKeys: Set<String> = []
}
