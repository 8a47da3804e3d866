import CImageCodec
import Foundation
import MapRenderCore

/// What the tile stage did for one map (`--summary` `tiles`).
public struct TileStats: Sendable, Codable, Equatable {
    /// Tiles the view needed (distinct per source; world copies count once).
    public var requested = 0
    /// From the disk cache (or this run's memory), no request or a 304 answer.
    public var fromCache = 0
    /// Fetched from a server or read from a local file.
    public var fetched = 0
    /// Not there (404, not in the file, outside the source's bounds): the background shows.
    public var missing = 0
    /// Errors: server errors after retries, timeouts, bad images, offline and not cached.
    public var failed = 0
    public init() {}
    public init(requested: Int, fromCache: Int, fetched: Int, missing: Int, failed: Int) {
        self.requested = requested; self.fromCache = fromCache; self.fetched = fetched
        self.missing = missing; self.failed = failed
    }
}

/// The tiles of one map: raster marks in draw order, attribution, stats, warnings.
/// Tiles of one vector source as bytes (`TileService.rawTiles`), in the order asked.
public struct RawTiles: Sendable {
    public var tiles: [(TileID, [UInt8])] = []
    /// Those of `tiles` that came from the disk cache or memory (the others were fetched).
    public var cached: Set<TileID> = []
    public var stats = TileStats()
    /// The first failure, one line.
    public var problem: String?
}

public struct TileBasemap: Sendable {
    public var marks: [RasterMark] = []
    public var attributions: [String] = []
    public var stats = TileStats()
    public var warnings: [String] = []
    /// Missing or failed tiles, one line, when there were any.
    public var problem: String?
}

/// The tile stage: opens sources, fetches each distinct tile once per run (many maps, many
/// threads), decodes it, and places it. One per set of options for the whole process, so batch
/// jobs share one fetcher, one disk cache and one memory of decoded tiles (`shared(for:)`).
///
/// The memory of decoded tiles is bounded (`memoryLimit` bytes, least recently used out); a
/// tile pushed out comes back from the disk cache or its file, without a request.
/// Tiles of all sources of a map are fetched together on a pool of workers; a tile that must
/// wait (Retry-After, backoff) is queued again for later, so no worker sleeps.
public final class TileService: @unchecked Sendable {
    public let options: TileOptions
    let client: TileHTTPClient
    private var sources: [String: TileSource] = [:]
    private let memory: TileMemory<Result>
    private var inFlight: [String: Pending] = [:]
    private let lock = NSLock()
    private let workers = TileWorkers(count: 16)

    enum Result {
        case image(RasterImage, fromCache: Bool)
        /// A vector tile's bytes, inflated.
        case bytes([UInt8], fromCache: Bool)
        case missing
        case failed(String)

        /// Bytes it holds, for the memory's bound.
        var cost: Int {
            if case .image(let img, _) = self { return img.rgba.count + (img.jpeg?.count ?? 0) + 128 }
            if case .bytes(let b, _) = self { return b.count + 128 }
            return 128
        }

        /// A tile refused for the map's `--max-memory` (`DecodeBudget`).
        var isOverBudget: Bool {
            if case .failed(let why) = self { return why.contains(DecodeBudget.overBudget) }
            return false
        }

        /// The same result, as found in memory.
        var cached: Result {
            switch self {
            case .image(let img, _): return .image(img, fromCache: true)
            case .bytes(let b, _): return .bytes(b, fromCache: true)
            default: return self
            }
        }
    }

    /// A tile being fetched for one map that other maps wait for. Resolved once: by its fetch,
    /// or by the map's deadline (`--tiles-timeout`) when that comes first.
    private final class Pending: @unchecked Sendable {
        let group = DispatchGroup()
        private var value: Result?
        private let lock = NSLock()
        init() { group.enter() }
        var result: Result? { lock.lock(); defer { lock.unlock() }; return value }
        /// Sets the result; false when it was already set (the fetch ended after the deadline).
        func resolve(_ r: Result) -> Bool {
            lock.lock()
            if value != nil { lock.unlock(); return false }
            value = r
            lock.unlock()
            group.leave()
            return true
        }
    }

    /// - Parameter memoryLimit: bytes of decoded tiles kept between maps (default 256 MiB; a
    ///   map's `decodedLimit` lowers it).
    public init(options: TileOptions, memoryLimit: Int = 256 << 20) {
        self.options = options
        client = TileHTTPClient(options: options)
        memory = TileMemory(limit: memoryLimit)
        baseMemoryLimit = memory.limit
    }
    private let baseMemoryLimit: Int

    private static var registry: [TileOptionsKey: TileService] = [:]
    private static let registryLock = NSLock()

    /// The service for these fetch options, made once per process.
    public static func shared(for options: TileOptions) -> TileService {
        let key = TileOptionsKey(options)
        registryLock.lock(); defer { registryLock.unlock() }
        if let s = registry[key] { return s }
        let s = TileService(options: options)
        registry[key] = s
        return s
    }

    /// Gets ready for the map's requests while other stages run, when a source in `specs` is
    /// fetched over HTTP (see `TileHTTPClient.warmUp`).
    public func warmUp(sources specs: [String]) {
        let http = specs.contains { text in
            guard let spec = try? TileSourceSpec.parse(text, options: options) else { return false }
            switch spec.kind {
            case .template, .pmtilesURL: return true
            default: return false
            }
        }
        if http { client.warmUp() }
    }

    /// Requests sent to tile servers by this service (for tests and the batch report).
    public var requestsSent: Int { client.requestsSent }

    /// Bytes of decoded tiles held between maps now, and the bound.
    public var memoryBytes: Int { lock.lock(); defer { lock.unlock() }; return memory.bytes }
    public var memoryLimit: Int { memory.limit }

    /// The tiles for `viewport` from every source in `options.sources`, bottom source first.
    /// Credentials in tile URLs are redacted from its warnings and errors (`Redaction`).
    ///
    /// - Parameter decodedLimit: bytes the map's decoded tiles may take (`--max-memory` less the
    ///   rest of the render; nil: no limit). Each tile the map needs may take an equal share of
    ///   it, judged from its header before it is decoded; one past its share is not decoded: it
    ///   counts as failed, with a warning. (A share, not first come first served: which tiles are
    ///   drawn does not depend on the order they arrive in.) The decoded tiles kept between maps
    ///   are held to the same limit (least recently used out).
    public func basemap(viewport: Viewport, scale: Double, sources specs: [String], decodedLimit: Int? = nil) throws -> TileBasemap {
        do {
            var out = try unredactedBasemap(viewport: viewport, scale: scale, sources: specs, decodedLimit: decodedLimit)
            out.warnings = out.warnings.map(Redaction.redact)
            out.problem = out.problem.map(Redaction.redact)
            return out
        } catch let e as MapRenderError {
            throw MapRenderError(e.kind, Redaction.redact(e.message))
        }
    }

    private func unredactedBasemap(viewport: Viewport, scale: Double, sources specs: [String], decodedLimit: Int?) throws -> TileBasemap {
        var out = TileBasemap()
        if let decodedLimit {
            lock.lock(); memory.setLimit(min(baseMemoryLimit, max(0, decodedLimit))); lock.unlock()
        }
        var problems: [String] = []
        struct Layer { var spec: TileSourceSpec; var source: TileSource; var retina: Bool; var placements: [TilePlacement]; var tiles: [TileID] }
        var layers: [Layer] = []
        for text in specs {
            let spec = try TileSourceSpec.parse(text, options: options)
            let source = try open(spec)
            let retina = source.hasRetina && scale >= 1.5
            let zoom = TileCoverage.tileZoom(viewZoom: viewport.zoom, tileSize: Double(spec.tileSize), scale: scale,
                                             pixelRatio: retina ? 2 : 1)
            let cover = TileCoverage.cover(viewport, zoom: zoom, minZoom: source.minZoom, maxZoom: source.maxZoom, scale: scale)
            layers.append(Layer(spec: spec, source: source, retina: retina, placements: cover.placements,
                                tiles: Array(Set(cover.placements.map(\.tile))).sorted()))
        }
        // Every source's tiles at once: a slow or waiting server does not hold up another's.
        let wanted = layers.flatMap { l in l.tiles.map { Want(source: l.source, key: l.spec.text, tile: $0, retina: l.retina) } }
        let budget = decodedLimit.map { DecodeBudget(limit: max(0, $0), tiles: wanted.count) }
        let results = fetchAll(wanted, budget: budget)
        var k = 0
        for l in layers {
            var byTile: [TileID: Result] = [:]
            out.stats.requested += l.tiles.count
            for t in l.tiles {
                let r = results[k]; k += 1
                byTile[t] = r
                switch r {
                case .image(_, let c), .bytes(_, let c): if c { out.stats.fromCache += 1 } else { out.stats.fetched += 1 }
                case .missing: out.stats.missing += 1
                case .failed(let why): out.stats.failed += 1; problems.append(why)
                }
            }
            for p in l.placements {
                if case .image(let img, _) = byTile[p.tile]! { out.marks.append(RasterMark(image: img, rect: p.rect)) }
            }
            if let a = l.spec.attribution ?? l.source.attribution, !out.attributions.contains(a) { out.attributions.append(a) }
        }
        if let a = options.attribution { out.attributions = a.isEmpty ? [] : [a] }
        for l in layers where l.tiles.isEmpty {
            // A tileset whose zooms cannot cover the view: say so (and fail --tiles-strict).
            let line = "tiles: \(l.spec.text): no tile of zooms \(l.source.minZoom)...\(l.source.maxZoom) covers the view"
            out.warnings.append(line)
            if out.problem == nil { out.problem = line }
        }
        let lateCount = results.filter { if case .failed(let why) = $0 { return why.hasSuffix("s --tiles-timeout") }; return false }.count
        if lateCount > 0 {
            out.warnings.append("tiles: \(lateCount) of \(out.stats.requested) not fetched within the \(TileHTTPClient.format(options.mapTimeout)) s --tiles-timeout; the map is drawn without them")
        }
        if let budget, budget.refused > 0 {
            out.warnings.append("tiles: \(budget.refused) of \(out.stats.requested) not decoded: each tile may take "
                + "\(DecodeBudget.mb(budget.share)) decoded, its share of the \(DecodeBudget.mb(budget.limit)) that --max-memory leaves for the map's tiles")
        }
        if let p = client.cache.takeProblem() { out.warnings.append("tiles: " + p) }
        if out.stats.missing + out.stats.failed > 0 {
            var line = "tiles: \(out.stats.missing) missing, \(out.stats.failed) failed of \(out.stats.requested)"
            if let first = problems.first { line += " (first: \(first))" }
            out.problem = out.problem.map { $0 + "; " + line } ?? line
            out.warnings.append(line)
        }
        return out
    }

    /// A small document (a TileJSON) at an http(s) `url`, through the tiles' HTTP client: its
    /// disk cache, `--offline`, user agent, timeouts and retries.
    public func document(_ url: String) throws -> Data {
        switch client.getWaiting(url) {
        case .ok(let d, _, _): return d
        case .notFound: throw MapRenderError(.inputUnreadable, Redaction.redact("\(url): not found (HTTP 404)"))
        case .failed(let why): throw MapRenderError(.unavailable, Redaction.redact(why))
        case .retry: throw MapRenderError(.unavailable, Redaction.redact("\(url): still unavailable"))
        }
    }

    /// The zooms and attribution of the tileset `text` (a `--tiles` form), opening it once.
    public func sourceInfo(_ text: String) throws -> (minZoom: Int, maxZoom: Int, attribution: String?) {
        do {
            let s = try open(try TileSourceSpec.parse(text, options: options), vector: true)
            return (s.minZoom, s.maxZoom, s.attribution)
        } catch let e as MapRenderError {
            throw MapRenderError(e.kind, Redaction.redact(e.message))
        }
    }

    /// The bytes of `tiles` of the tileset `text` (vector tiles: gzip inflated), through the
    /// same fetching, disk cache and memory as raster tiles. Missing tiles are left out; failed
    /// ones are counted and the first reason kept in `problem`.
    ///
    /// - Parameter budget: the share of `--max-memory` each tile may take (inflated bytes, then
    ///   decoded vertices: the caller's part); a tile that inflates past it fails, counted in the budget.
    public func rawTiles(_ text: String, tiles: [TileID], budget: DecodeBudget? = nil) throws -> RawTiles {
        var out = RawTiles()
        if let budget {
            lock.lock(); memory.setLimit(min(baseMemoryLimit, budget.limit)); lock.unlock()
        }
        let spec = try TileSourceSpec.parse(text, options: options)
        let source = try open(spec, vector: true)
        let results = fetchAll(tiles.map { Want(source: source, key: spec.text, tile: $0, retina: false, raw: true) }, budget: budget)
        out.stats.requested = tiles.count
        for (t, r) in zip(tiles, results) {
            switch r {
            case .bytes(let b, let c):
                if c { out.stats.fromCache += 1; out.cached.insert(t) } else { out.stats.fetched += 1 }
                out.tiles.append((t, b))
            case .image: out.stats.failed += 1
            case .missing: out.stats.missing += 1
            case .failed(let why):
                out.stats.failed += 1
                if out.problem == nil { out.problem = Redaction.redact(why) }
            }
        }
        return out
    }

    /// The most a vector tile may inflate to, whatever `--max-memory` leaves.
    static let maxInflatedTile = 64 << 20

    /// Counts a refusal in `budget` and gives the failure's words.
    private static func refuse(_ budget: DecodeBudget?) -> String {
        budget?.refuse()
        return DecodeBudget.overBudget
    }

    private enum InflateError: Error { case tooLarge }

    /// A vector tile's bytes inflated when gzip (MBTiles and PMTiles from tippecanoe are), at most
    /// `limit` bytes.
    static func inflate(_ d: Data, name: String, limit: Int = maxInflatedTile) throws -> [UInt8] {
        guard d.count >= 2, d[d.startIndex] == 0x1f, d[d.startIndex + 1] == 0x8b else { return [UInt8](d) }
        var out: UnsafeMutablePointer<UInt8>?
        var n = 0
        let rc = d.withUnsafeBytes { mr_gunzip($0.bindMemory(to: UInt8.self).baseAddress, d.count, limit, &out, &n) }
        defer { if let out { mr_image_free(out) } }
        switch rc {
        case 0: return out.map { [UInt8](UnsafeBufferPointer(start: $0, count: n)) } ?? []
        case 2 where limit < maxInflatedTile: throw InflateError.tooLarge
        case 2: throw MapRenderError(.inputMalformed, "\(name): inflates to more than \(limit >> 20) MiB")
        default: throw MapRenderError(.inputMalformed, "\(name): gzip data is corrupt or truncated")
        }
    }

    /// - Parameter vector: open for vector tiles (`rawTiles`), which the files must hold.
    private func open(_ spec: TileSourceSpec, vector: Bool = false) throws -> TileSource {
        lock.lock(); defer { lock.unlock() }
        let key = vector ? "vector|" + spec.text : spec.text
        if let s = sources[key] { return s }
        let s: TileSource
        switch spec.kind {
        case .template(let t): s = URLTileSource(spec: spec, template: t, client: client)
        case .folder(let p): s = try FolderTileSource(path: p)
        case .mbtiles(let p): s = try MBTilesSource(path: p, vector: vector)
        case .pmtiles(let p): s = try PMTilesSource(reader: FileRangeReader(path: p), vector: vector)
        case .pmtilesURL(let u):
            do { s = try PMTilesSource(reader: HTTPRangeReader(url: u, client: client), vector: vector) }
            catch let e as TileReadError { throw MapRenderError(.inputUnreadable, "--tiles: \(e.description)") }
        }
        sources[key] = s
        return s
    }

    /// One tile of one source that a map needs.
    private struct Want {
        var source: TileSource, key: String, tile: TileID, retina: Bool
        /// Keep the bytes (vector tiles) instead of decoding an image.
        var raw = false
        var memoryKey: String { "\(key)|\(tile)|\(retina)\(raw ? "|raw" : "")" }
    }

    /// Fetches and decodes `wanted` in parallel, results in the same order. A tile already in
    /// memory, or being fetched by another map of this run, is not fetched again; a tile that
    /// must wait is queued again after its wait, holding no worker meanwhile.
    private func fetchAll(_ wanted: [Want], budget: DecodeBudget? = nil) -> [Result] {
        var out = [Result?](repeating: nil, count: wanted.count)
        var mine: [(Int, Pending)] = []
        var waits: [(Int, Pending)] = []
        lock.lock()
        for (i, w) in wanted.enumerated() {
            let key = w.memoryKey
            if let r = memory.value(for: key) {
                out[i] = r.cached
            } else if let p = inFlight[key] {
                waits.append((i, p))
            } else {
                let p = Pending()
                inFlight[key] = p
                mine.append((i, p))
            }
        }
        lock.unlock()

        // The map's deadline: what has not arrived by then counts as failed.
        let deadline = DispatchTime.now() + options.mapTimeout
        let late = "not fetched within the \(TileHTTPClient.format(options.mapTimeout)) s --tiles-timeout"
        let all = DispatchGroup()
        for (i, p) in mine {
            all.enter()
            let w = wanted[i]
            schedule(w, attempt: 0, after: 0, started: Date().timeIntervalSince1970, deadline: deadline, budget: budget) { r in
                self.lock.lock()
                // A tile that came after the deadline is still kept for later maps; one refused
                // for this map's --max-memory is not (a later map may have room for it).
                if !r.isOverBudget { self.memory.insert(r, for: w.memoryKey, cost: r.cost) }
                if self.inFlight[w.memoryKey] === p { self.inFlight.removeValue(forKey: w.memoryKey) }
                self.lock.unlock()
                _ = p.resolve(r)
                all.leave()
            }
        }
        if all.wait(timeout: deadline) == .timedOut {
            lock.lock()
            for (i, p) in mine where p.result == nil {
                if inFlight[wanted[i].memoryKey] === p { inFlight.removeValue(forKey: wanted[i].memoryKey) }
            }
            lock.unlock()
            for (i, p) in mine { _ = p.resolve(.failed("\(wanted[i].source.name) tile \(wanted[i].tile): \(late)")) }
        }
        for (i, p) in mine { out[i] = p.result! }
        for (i, p) in waits {
            if p.group.wait(timeout: deadline) == .timedOut {
                out[i] = .failed("\(wanted[i].source.name) tile \(wanted[i].tile): \(late)")
            } else { out[i] = p.result!.cached }
        }
        return out.map { $0! }
    }

    /// Runs attempt `attempt` at `w` on a worker after `after` seconds; `done` gets the result.
    /// A retry that would end more than `maxRetryWait` seconds after the first attempt (at
    /// `started`) fails the tile instead: waits are bounded per tile in total, not only each.
    /// An attempt that would start after `deadline` (the map's `--tiles-timeout`) is not made.
    private func schedule(_ w: Want, attempt: Int, after: Double, started: Double, deadline: DispatchTime,
                          budget: DecodeBudget?, done: @escaping (Result) -> Void) {
        let run = {
            self.workers.submit {
                guard DispatchTime.now() < deadline else {
                    return done(.failed("\(w.source.name) tile \(w.tile): not fetched within the \(TileHTTPClient.format(self.options.mapTimeout)) s --tiles-timeout"))
                }
                switch Self.load(w.tile, from: w.source, retina: w.retina, raw: w.raw, attempt: attempt, budget: budget) {
                case .done(let r): done(r)
                case .retry(let wait, let next):
                    if let why = self.client.retryBudgetSpent(started: started, wait: wait, attempts: attempt + 1) {
                        done(.failed("\(w.source.name) tile \(w.tile): \(why)"))
                    } else {
                        self.schedule(w, attempt: next, after: wait, started: started, deadline: deadline, budget: budget, done: done)
                    }
                }
            }
        }
        if after > 0 { DispatchQueue.global().asyncAfter(deadline: .now() + after, execute: run) } else { run() }
    }

    enum Load {
        case done(Result)
        case retry(after: Double, attempt: Int)
    }

    static func load(_ t: TileID, from source: TileSource, retina: Bool, raw: Bool = false, attempt: Int = 0,
                     budget: DecodeBudget? = nil) -> Load {
        switch source.fetch(t, retina: retina, attempt: attempt) {
        case .missing: return .done(.missing)
        case .failed(let why): return .done(.failed(why))
        case .retry(let after, let next): return .retry(after: after, attempt: next)
        case .data(let d, let fromCache) where raw:
            // A vector tile's bytes count against its share as inflated; past the share the
            // inflating stops there (the stage turns what is left into a vertex limit).
            let limit = min(maxInflatedTile, budget?.share ?? .max)
            if budget != nil, d.count > limit { return .done(.failed("\(source.name) tile \(t) " + refuse(budget))) }
            do { return .done(.bytes(try inflate(d, name: "\(source.name) tile \(t)", limit: limit), fromCache: fromCache)) }
            catch InflateError.tooLarge where limit < maxInflatedTile {
                return .done(.failed("\(source.name) tile \(t) " + refuse(budget)))
            } catch { return .done(.failed("\(error)")) }
        case .data(let d, let fromCache):
            do { return .done(.image(try decode(d, name: "\(source.name) tile \(t)", budget: budget), fromCache: fromCache)) }
            catch { return .done(.failed("\(error)")) }
        }
    }

    /// The widest or tallest tile decoded (pixels): 4096, four times a 512-px `@2x` tile's side.
    /// A header claiming more is refused before the decoder allocates (a 2 KB JPEG can claim 65000²).
    public static let maxTileSide = 4096

    /// Decodes PNG, JPEG or WebP bytes to RGBA through the one codec (`ImageCodec`): the header
    /// first, refused past `maxSide` a side, or past its share of `budget`, before the decoder
    /// allocates.
    public static func decode(_ d: Data, name: String, maxSide: Int = maxTileSide, budget: DecodeBudget? = nil) throws -> RasterImage {
        let limits = ImageCodec.Limits(maxSide: maxSide)
        let decoded: ImageCodec.Decoded
        do {
            if let budget {
                let header = try ImageCodec.probe(d)
                if let why = ImageCodec.sizeProblem(header, limits) { throw ImageCodec.Failure.tooLarge(why) }
                guard budget.admits(header.decodedBytes) else {
                    throw MapRenderError(.unavailable, "\(name): its \(header.width)x\(header.height) pixels "
                        + "(\(DecodeBudget.mb(header.decodedBytes)) decoded) \(DecodeBudget.overBudget) "
                        + "(\(DecodeBudget.mb(budget.share)) a tile, of \(DecodeBudget.mb(budget.limit)))")
                }
            }
            decoded = try ImageCodec.decode(d, limits: limits)
        } catch let f as ImageCodec.Failure {
            throw MapRenderError(.inputMalformed, "\(name): not a readable image: \(f)")
        }
        // JPEG bytes are kept so that SVG and PDF embed the tile as it came.
        let isJPEG = d.count >= 3 && d.prefix(3).elementsEqual([0xFF, 0xD8, 0xFF])
        return RasterImage(width: decoded.width, height: decoded.height, rgba: decoded.rgba, name: name, jpeg: isJPEG ? [UInt8](d) : nil)
    }
}

/// The bytes one map's decoded tiles may take (`--max-memory` less the rest of the render), in
/// equal shares: each of the map's `tiles` may take `limit / tiles`, judged from its header
/// before it is decoded. Thread-safe.
public final class DecodeBudget: @unchecked Sendable {
    public let limit: Int
    /// What one tile may take.
    public let share: Int
    private var refusals = 0
    private let lock = NSLock()

    public init(limit: Int, tiles: Int) {
        self.limit = max(0, limit)
        share = self.limit / max(1, tiles)
    }

    /// In a refused tile's message; it also keeps the failure out of the memory of decoded tiles.
    static let overBudget = "would take more than its share of what --max-memory leaves for the map's decoded tiles"

    /// True when a tile of `bytes` decoded fits its share; false is counted as a refusal.
    public func admits(_ bytes: Int) -> Bool {
        if bytes <= share { return true }
        refuse()
        return false
    }

    /// Counts a tile refused by its user (a vector tile whose vertices would pass its share).
    public func refuse() {
        lock.lock(); refusals += 1; lock.unlock()
    }

    /// Tiles refused.
    public var refused: Int { lock.lock(); defer { lock.unlock() }; return refusals }

    /// `500 MB`, `1.5 MB`.
    public static func mb(_ n: Int) -> String {
        let m = Double(n) / 1_048_576
        return m >= 10 ? "\(Int(m.rounded())) MB" : String(format: "%.1f MB", m)
    }
}

/// The fetch-relevant options: jobs that agree on these share one service.
private struct TileOptionsKey: Hashable {
    var cache: String, ua: String, connections: Int, offline: Bool, timeout: Double, retries: Int
    var retryBase: Double, maxRetryWait: Double
    var connectTimeout: Double, stallTimeout: Double, mapTimeout: Double, maxBody: Int, cacheMax: Int?
    var size: Int?, subdomains: String?
    init(_ o: TileOptions) {
        cache = o.resolvedCacheDirectory; ua = o.fullUserAgent; connections = o.connectionsPerHost
        offline = o.offline; timeout = o.timeout; retries = o.retries; size = o.tileSize; subdomains = o.subdomains
        retryBase = o.retryBase; maxRetryWait = o.maxRetryWait
        connectTimeout = o.connectTimeout; stallTimeout = o.stallTimeout; mapTimeout = o.mapTimeout
        maxBody = o.maxBodyBytes; cacheMax = o.cacheMaxBytes
    }
}
