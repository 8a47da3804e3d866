import CTileCodecs
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
public final class TileService: @unchecked Sendable {
    public let options: TileOptions
    let client: TileHTTPClient
    private var sources: [String: TileSource] = [:]
    private var done: [String: Result] = [:]
    private var inFlight: [String: DispatchGroup] = [:]
    private let lock = NSLock()
    private let workers: OperationQueue

    enum Result {
        case image(RasterImage, fromCache: Bool)
        case missing
        case failed(String)
    }

    public init(options: TileOptions) {
        self.options = options
        client = TileHTTPClient(options: options)
        workers = OperationQueue()
        workers.maxConcurrentOperationCount = 16
        workers.name = "maprender.tiles"
    }

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

    /// Requests sent to tile servers by this service (for tests and the batch report).
    public var requestsSent: Int { client.requestsSent }

    /// The tiles for `viewport` from every source in `options.sources`, bottom source first.
    public func basemap(viewport: Viewport, scale: Double, sources specs: [String]) throws -> TileBasemap {
        var out = TileBasemap()
        var problems: [String] = []
        for text in specs {
            let spec = try TileSourceSpec.parse(text, options: options)
            let source = try open(spec)
            let retina = source.hasRetina && scale >= 1.5
            let zoom = TileCoverage.tileZoom(viewZoom: viewport.zoom, tileSize: Double(spec.tileSize), scale: scale,
                                             pixelRatio: retina ? 2 : 1)
            let cover = TileCoverage.cover(viewport, zoom: zoom, minZoom: source.minZoom, maxZoom: source.maxZoom, scale: scale)
            let tiles = Array(Set(cover.placements.map(\.tile))).sorted()
            let results = fetchAll(tiles, from: source, sourceKey: text, retina: retina)
            out.stats.requested += tiles.count
            for t in tiles {
                switch results[t]! {
                case .image(_, let c): if c { out.stats.fromCache += 1 } else { out.stats.fetched += 1 }
                case .missing: out.stats.missing += 1
                case .failed(let why): out.stats.failed += 1; problems.append(why)
                }
            }
            for p in cover.placements {
                if case .image(let img, _) = results[p.tile]! { out.marks.append(RasterMark(image: img, rect: p.rect)) }
            }
            if let a = spec.attribution ?? source.attribution, !out.attributions.contains(a) { out.attributions.append(a) }
        }
        if let a = options.attribution { out.attributions = a.isEmpty ? [] : [a] }
        if out.stats.missing + out.stats.failed > 0 {
            var line = "tiles: \(out.stats.missing) missing, \(out.stats.failed) failed of \(out.stats.requested)"
            if let first = problems.first { line += " (first: \(first))" }
            out.problem = line
            out.warnings.append(line)
        }
        return out
    }

    private func open(_ spec: TileSourceSpec) throws -> TileSource {
        lock.lock(); defer { lock.unlock() }
        if let s = sources[spec.text] { return s }
        let s: TileSource
        switch spec.kind {
        case .template(let t): s = URLTileSource(spec: spec, template: t, client: client)
        case .folder(let p): s = try FolderTileSource(path: p)
        case .mbtiles(let p): s = try MBTilesSource(path: p)
        case .pmtiles(let p): s = try PMTilesSource(reader: FileRangeReader(path: p))
        case .pmtilesURL(let u):
            do { s = try PMTilesSource(reader: HTTPRangeReader(url: u, client: client)) }
            catch let e as TileReadError { throw MapRenderError(.inputUnreadable, "--tiles: \(e.description)") }
        }
        sources[spec.text] = s
        return s
    }

    /// Fetches and decodes `tiles` in parallel; a tile already fetched (or being fetched by
    /// another map) in this run is not fetched again.
    private func fetchAll(_ tiles: [TileID], from source: TileSource, sourceKey: String, retina: Bool) -> [TileID: Result] {
        var out: [TileID: Result] = [:]
        var mine: [(TileID, String)] = []
        var waits: [(TileID, String, DispatchGroup)] = []
        lock.lock()
        for t in tiles {
            let key = "\(sourceKey)|\(t)|\(retina)"
            if let r = done[key] {
                if case .image(let img, _) = r { out[t] = .image(img, fromCache: true) } else { out[t] = r }
            } else if let g = inFlight[key] {
                waits.append((t, key, g))
            } else {
                let g = DispatchGroup()
                g.enter()
                inFlight[key] = g
                mine.append((t, key))
            }
        }
        lock.unlock()

        let fetched = Box([Result?](repeating: nil, count: mine.count))
        let all = DispatchGroup()
        let resultsLock = NSLock()
        for (k, (t, _)) in mine.enumerated() {
            all.enter()
            workers.addOperation {
                let r = Self.load(t, from: source, retina: retina)
                resultsLock.lock(); fetched.value[k] = r; resultsLock.unlock()
                all.leave()
            }
        }
        all.wait()
        lock.lock()
        for (k, (t, key)) in mine.enumerated() {
            done[key] = fetched.value[k]!
            out[t] = fetched.value[k]!
            inFlight.removeValue(forKey: key)?.leave()
        }
        lock.unlock()
        for (t, key, g) in waits {
            g.wait()
            lock.lock()
            let r = done[key]!
            lock.unlock()
            if case .image(let img, _) = r { out[t] = .image(img, fromCache: true) } else { out[t] = r }
        }
        return out
    }

    static func load(_ t: TileID, from source: TileSource, retina: Bool) -> Result {
        switch source.fetch(t, retina: retina) {
        case .missing: return .missing
        case .failed(let why): return .failed(why)
        case .data(let d, let fromCache):
            do { return .image(try decode(d, name: "\(source.name) tile \(t)"), fromCache: fromCache) }
            catch { return .failed("\(error)") }
        }
    }

    /// Decodes PNG, JPEG or WebP bytes to RGBA.
    public static func decode(_ d: Data, name: String) throws -> RasterImage {
        var out: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var err = [CChar](repeating: 0, count: 256)
        let rc = d.withUnsafeBytes { buf in
            mr_tile_decode(buf.bindMemory(to: UInt8.self).baseAddress, d.count, &out, &w, &h, &err, err.count)
        }
        guard rc == 0, let out else {
            throw MapRenderError(.inputMalformed, "\(name): not a readable image: \(String(cString: err))")
        }
        defer { mr_tile_free(out) }
        let rgba = [UInt8](UnsafeBufferPointer(start: out, count: Int(w) * Int(h) * 4))
        return RasterImage(width: Int(w), height: Int(h), rgba: rgba, name: name)
    }
}

/// The fetch-relevant options: jobs that agree on these share one service.
private struct TileOptionsKey: Hashable {
    var cache: String, ua: String, connections: Int, offline: Bool, timeout: Double, retries: Int
    var size: Int?, subdomains: String?
    init(_ o: TileOptions) {
        cache = o.resolvedCacheDirectory; ua = o.fullUserAgent; connections = o.connectionsPerHost
        offline = o.offline; timeout = o.timeout; retries = o.retries; size = o.tileSize; subdomains = o.subdomains
    }
}
