import CSQLite
import Foundation
import MapRenderCore

/// An MBTiles file (SQLite): `tiles(zoom_level, tile_column, tile_row, tile_data)` with TMS rows
/// (row 0 at the south), and `metadata(name, value)` for format, zooms, bounds and attribution.
///
/// SQLite through the system library (libsqlite3, Debian's libsqlite3-dev): a few read-only
/// queries need no ORM, and the system library is the one every MBTiles tool is tested with.
/// Opened read-only, so concurrent batch jobs and other processes can share the file.
final class MBTilesSource: TileSource, @unchecked Sendable {
    let name: String
    private(set) var minZoom = 0, maxZoom = 22
    private(set) var attribution: String?
    private(set) var bounds: GeoBounds?
    private(set) var format = "png"
    var hasRetina: Bool { false }
    private var db: OpaquePointer?
    private var query: OpaquePointer?
    private let lock = NSLock()
    /// The longest one query may run (seconds). A `tiles` or `metadata` that is a view over an
    /// endless recursive query is stopped by SQLite's progress handler after this long.
    let queryTimeLimit: Double
    private let clock = QueryClock()
    /// Set once a tile query was stopped: later tiles fail at once instead of each waiting.
    private var stalled: String?

    /// - Parameter vector: the file must hold vector tiles (format pbf) for a `--basemap-style` source.
    init(path: String, queryTimeLimit: Double = 2, vector: Bool = false) throws {
        name = path
        self.queryTimeLimit = queryTimeLimit
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MapRenderError(.inputUnreadable, "--tiles: cannot read MBTiles file \(path)")
        }
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            closeDatabase()
            throw MapRenderError(.inputUnreadable, "--tiles: cannot open MBTiles file \(path): \(msg)")
        }
        // Every 1000 virtual-machine steps, SQLite asks whether the query's time is up.
        sqlite3_progress_handler(db, 1000, { context in
            Unmanaged<QueryClock>.fromOpaque(context!).takeUnretainedValue().expired ? 1 : 0
        }, Unmanaged.passUnretained(clock).toOpaque())
        let meta = try readMetadata(path)
        if let f = meta["format"] { format = f }
        if vector && format != "pbf" {
            throw MapRenderError(.inputMalformed, "--tiles: \(path) holds \(format) tiles; a vector source needs pbf (MVT) tiles")
        }
        guard vector || ["png", "jpg", "jpeg", "webp"].contains(format) else {
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(path) holds \(format) tiles; maprender draws png, jpg and webp")
        }
        for (key, z) in [("minzoom", meta["minzoom"]), ("maxzoom", meta["maxzoom"])] {
            guard let s = z, let z = Int(s.trimmingCharacters(in: .whitespaces)) else { continue }
            guard TileCoverage.zoomRange.contains(z) else {
                closeDatabase()
                throw MapRenderError(.inputMalformed, "--tiles: \(path): metadata \(key) \(z) is not within 0...30")
            }
            if key == "minzoom" { minZoom = z } else { maxZoom = z }
        }
        guard minZoom <= maxZoom else {
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(path): metadata minzoom \(minZoom) is more than maxzoom \(maxZoom)")
        }
        if let s = meta["bounds"] { bounds = GeoBounds.parse(s) }
        if let a = meta["attribution"], !a.isEmpty { attribution = a }
        guard sqlite3_prepare_v2(db, "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                                 -1, &query, nil) == SQLITE_OK else {
            let msg = String(cString: sqlite3_errmsg(db))
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(path) is not an MBTiles file: \(msg)")
        }
        // One lookup now, so that a `tiles` that never answers fails the open, not every tile.
        if case .failed(let why) = fetch(TileID(z: 0, x: 0, y: 0), retina: false, attempt: 0) {
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(why)")
        }
    }

    deinit {
        sqlite3_finalize(query)
        sqlite3_close(db)
    }

    /// Closes the database on a failed `init`, which then throws: `deinit` still runs (every
    /// stored property is set) and closes `db` again, so it must not keep the freed handle.
    private func closeDatabase() {
        sqlite3_close(db)
        db = nil
    }

    private func readMetadata(_ path: String) throws -> [String: String] {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT name, value FROM metadata", -1, &stmt, nil) == SQLITE_OK else {
            let msg = String(cString: sqlite3_errmsg(db))
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(path) is not an MBTiles file: \(msg)")
        }
        defer { sqlite3_finalize(stmt) }
        var out: [String: String] = [:]
        clock.start(queryTimeLimit)
        defer { clock.stop() }
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW {
            if let n = sqlite3_column_text(stmt, 0), let v = sqlite3_column_text(stmt, 1) {
                out[String(cString: n)] = String(cString: v)
            }
            rc = sqlite3_step(stmt)
        }
        if rc == SQLITE_INTERRUPT {
            sqlite3_finalize(stmt); stmt = nil
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(path): reading the metadata table took more than \(Self.seconds(queryTimeLimit)) s and was stopped (a view that never ends?)")
        }
        return out
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }

    func fetch(_ t: TileID, retina: Bool, attempt: Int) -> TileFetch {
        guard TileCoverage.zoomRange.contains(t.z) else { return .missing }
        if let b = bounds, !TileBounds.intersects(t, b) { return .missing }
        lock.lock(); defer { lock.unlock() }
        if let why = stalled { return .failed(why) }
        clock.start(queryTimeLimit)
        defer { clock.stop() }
        sqlite3_reset(query)
        sqlite3_bind_int(query, 1, Int32(t.z))
        sqlite3_bind_int(query, 2, Int32(t.x))
        sqlite3_bind_int(query, 3, Int32((1 << t.z) - 1 - t.y))
        switch sqlite3_step(query) {
        case SQLITE_ROW:
            let n = Int(sqlite3_column_bytes(query, 0))
            guard n > 0, let p = sqlite3_column_blob(query, 0) else { return .missing }
            return .data(Data(bytes: p, count: n), fromCache: false)
        case SQLITE_DONE:
            return .missing
        case SQLITE_INTERRUPT:
            stalled = "\(name): reading the tiles table took more than \(Self.seconds(queryTimeLimit)) s and was stopped (a view that never ends?)"
            return .failed(stalled!)
        default:
            return .failed("\(name): tile \(t): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
}

/// When the running query must stop: read by SQLite's progress handler, on the querying thread.
private final class QueryClock: @unchecked Sendable {
    private var deadline: UInt64 = .max
    func start(_ seconds: Double) { deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(seconds * 1e9) }
    func stop() { deadline = .max }
    var expired: Bool { DispatchTime.now().uptimeNanoseconds > deadline }
}

enum TileBounds {
    /// Whether tile `t` overlaps `b` (degrees; `west > east` crosses the antimeridian).
    static func intersects(_ t: TileID, _ b: GeoBounds) -> Bool {
        let n = Double(1 << t.z)
        let west = Double(t.x) / n * 360 - 180, east = Double(t.x + 1) / n * 360 - 180
        let north = WebMercator.lat(y: Double(t.y) / n), south = WebMercator.lat(y: Double(t.y + 1) / n)
        guard south < b.north, north > b.south else { return false }
        if b.west <= b.east { return west < b.east && east > b.west }
        return east > b.west || west < b.east
    }
}
