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
    /// The folder every output must stay in (canonical), when the manifest was loaded confined
    /// (`allowOutsideRoot: false`): the runner then writes through `ConfinedWrite`.
    public var confinedRoot: String?

    /// A manifest built in code (library use).
    public init(name: String = "batch", jobs: [BatchJob]) {
        self.name = name
        self.jobs = jobs
    }

    /// Reads and checks a JSON or YAML manifest (YAML for `.yaml`/`.yml`, JSON for `.json`, else by
    /// its first character).
    /// Every key a job (or `defaults`) may have: `render`'s long option names, plus `filter` and `cluster`.
    public static var jobKeys: [String] { ManifestReader.jobKeys }

    /// With `allowOutsideRoot: false` (what `maprender batch` passes unless `--allow-outside-root`),
    /// every path a job names — output, inputs, basemaps, style — must lie under `root` (default:
    /// the manifest's folder): `..` out of it, absolute paths elsewhere and symbolic links leading
    /// out are refused. Library callers that build manifests from their own paths keep the default.
    public static func load(path: String, root: String? = nil, allowOutsideRoot: Bool = true) throws -> BatchManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BatchManifestError(issues: [MapRenderError(.inputUnreadable,
                                                             "cannot read manifest \(path): no such file or not readable")])
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(data: data, name: path, baseDirectory: folder, root: root, allowOutsideRoot: allowOutsideRoot)
    }

    /// Checks a manifest held in memory. `name` appears in messages (and picks JSON or YAML by
    /// its extension); relative paths resolve against `baseDirectory`.
    public static func parse(data: Data, name: String, baseDirectory: String, root: String? = nil,
                             allowOutsideRoot: Bool = true) throws -> BatchManifest {
        let top: ManifestValue
        do {
            top = try ManifestValue.parse(data, syntax: ManifestValue.syntax(name: name, data: data))
        } catch let e as ManifestSyntaxError {
            throw BatchManifestError(issues: [MapRenderError(.style, "\(name): \(e.message)")])
        }
        var reader = ManifestReader(name: name, baseDirectory: URL(fileURLWithPath: baseDirectory, isDirectory: true))
        let jobs = reader.read(top)
        var issues = reader.issues
        if !allowOutsideRoot { issues += confinementIssues(jobs, name: name, root: root ?? baseDirectory) }
        if !issues.isEmpty { throw BatchManifestError(issues: issues) }
        var manifest = BatchManifest(name: name, jobs: jobs)
        if !allowOutsideRoot {
            manifest.confinedRoot = OutputSafety.Identity.canonical(URL(fileURLWithPath: root ?? baseDirectory).standardizedFileURL.path)
        }
        return manifest
    }

    /// One job posted to `maprender serve` (`POST /render`): a JSON object with a batch job's keys
    /// but `output`, read and checked as a job of a manifest is, except that `input`, `style` and
    /// `tiles` take names from `names` (the server's data sets, styles and tile sources) and
    /// options naming other files or settings of the server are refused; `data` holds the points
    /// in the body (a GeoJSON object, or CSV text). Messages start with the key (`size: ...`).
    /// `inputs`: files the request's URL names already (`/maps/{name}/render`), read before its own.
    public static func requestJob(json data: Data, names: RequestNames, files: OptionFiles,
                                  inputs: [String] = []) throws -> RenderRequest {
        let top: ManifestValue
        do {
            top = try ManifestValue.parse(data, syntax: .json)
        } catch let e as ManifestSyntaxError {
            throw BatchManifestError(issues: [MapRenderError(.style, e.message)])
        }
        var reader = ManifestReader(requestNames: names, files: files)
        guard let r = reader.readRequest(top, inputs: inputs) else { throw BatchManifestError(issues: reader.issues) }
        return r
    }

    /// The paths of jobs that lead outside `root`, one issue each (a path shared by many jobs once).
    static func confinementIssues(_ jobs: [BatchJob], name: String, root: String) -> [MapRenderError] {
        let top = OutputSafety.Identity.canonical(URL(fileURLWithPath: root).standardizedFileURL.path)
        let prefix = top.hasSuffix("/") ? top : top + "/"
        var issues: [MapRenderError] = [], reported = Set<String>()
        for job in jobs {
            let named = [("output", job.output)] + job.request.inputs.map { ("input", $0) }
                + job.request.basemaps.map { ("basemap", $0) } + (job.styleFile.map { [("style", $0)] } ?? [])
                + job.request.tiles.sources.filter { FileManager.default.fileExists(atPath: $0) }.map { ("tiles", $0) }
                + (job.request.tiles.cacheDirectory.map { [("tile-cache", $0)] } ?? [])
                // Icon files: `marker-icon`'s, and those the job's style names (beside the style).
                + job.request.style.marker.iconFiles.map { ("marker-icon", job.request.style.marker.iconPath($0)) }
            for (key, path) in named where path != "-" {
                let real = OutputSafety.Identity.canonical(AtomicFile.resolveSymlinks(path))
                guard !real.hasPrefix(prefix), reported.insert(path).inserted else { continue }
                issues.append(MapRenderError(.style, MessageText.escaped(
                    "\(name): jobs[\(job.index)].\(key): \(path) is outside \(top) (give --root DIR or --allow-outside-root)")))
            }
        }
        return issues
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
    public var filter: FeatureFilter?
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
    public init(index: Int, output: String, request: RenderRequest, filter: FeatureFilter? = nil,
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
