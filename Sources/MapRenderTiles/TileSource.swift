import Foundation
import MapRenderCore

/// What fetching one tile gave.
public enum TileFetch: Sendable {
    /// Encoded image bytes; `fromCache` when no request reached the server (or it answered 304).
    case data(Data, fromCache: Bool)
    /// No such tile (404, not in the file, outside the source's bounds): the background shows.
    case missing
    /// The tile could not be had (server error, timeout, offline and not cached); the reason, one line.
    case failed(String)
    /// Not yet: try again in `after` seconds as attempt `attempt` (a Retry-After, a backoff).
    case retry(after: Double, attempt: Int)
}

/// A tileset: a folder, an MBTiles or PMTiles file, or a tile server. Safe to use from many threads.
protocol TileSource: AnyObject, Sendable {
    var name: String { get }
    var minZoom: Int { get }
    var maxZoom: Int { get }
    /// The source's attribution (its metadata or preset); nil when it has none.
    var attribution: String? { get }
    /// Whether it serves `@2x` tiles (templates with `{r}`).
    var hasRetina: Bool { get }
    /// Attempt `attempt` (0 first) at the tile. Never sleeps: a wait comes back as `.retry`.
    func fetch(_ tile: TileID, retina: Bool, attempt: Int) -> TileFetch
}

extension TileSource {
    func fetch(_ tile: TileID, retina: Bool) -> TileFetch { fetch(tile, retina: retina, attempt: 0) }
}

/// A folder laid out as `z/x/y.png` (or .jpg, .jpeg, .webp).
final class FolderTileSource: TileSource, @unchecked Sendable {
    let root: String
    let name: String
    let minZoom: Int, maxZoom: Int
    var attribution: String? { nil }
    var hasRetina: Bool { false }
    /// Raster tiles, and vector tiles (`.pbf`, `.mvt`) for a `--basemap-style` source.
    static let extensions = ["png", "jpg", "jpeg", "webp", "pbf", "mvt"]

    init(path: String) throws {
        root = path; name = path
        let zooms = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .compactMap { Int($0) }.filter(TileCoverage.zoomRange.contains).sorted()
        guard let lo = zooms.first, let hi = zooms.last else {
            throw MapRenderError(.inputMalformed, "--tiles: folder \(path) has no zoom folders 0...30 (expected z/x/y.png)")
        }
        minZoom = lo; maxZoom = hi
    }

    /// The most bytes one tile file may have (as for PMTiles tiles).
    static let tileLimit = 32 << 20

    func fetch(_ t: TileID, retina: Bool, attempt: Int) -> TileFetch {
        for ext in Self.extensions {
            let p = "\(root)/\(t.z)/\(t.x)/\(t.y).\(ext)"
            // Non-blocking, so a FIFO does not hang the open; only regular files are read.
            let fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                return .failed("\(p): not a regular file")
            }
            guard st.st_size <= Self.tileLimit else {
                return .failed("\(p): \(st.st_size) bytes, more than the \(Self.tileLimit >> 20) MiB a tile may have")
            }
            var d = Data(count: Int(st.st_size))
            var got = 0
            while got < d.count {
                let n = d.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(got)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                got += n
            }
            guard got == d.count else { return .failed("\(p): read \(got) of \(d.count) bytes") }
            return .data(d, fromCache: false)
        }
        return .missing
    }
}
