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

    init(path: String) throws {
        name = path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MapRenderError(.inputUnreadable, "--tiles: cannot read MBTiles file \(path)")
        }
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            closeDatabase()
            throw MapRenderError(.inputUnreadable, "--tiles: cannot open MBTiles file \(path): \(msg)")
        }
        let meta = try readMetadata(path)
        if let f = meta["format"] { format = f }
        guard ["png", "jpg", "jpeg", "webp"].contains(format) else {
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(path) holds \(format) tiles; maprender draws png, jpg and webp")
        }
        if let s = meta["minzoom"], let z = Int(s) { minZoom = z }
        if let s = meta["maxzoom"], let z = Int(s) { maxZoom = z }
        if let s = meta["bounds"] { bounds = GeoBounds.parse(s) }
        if let a = meta["attribution"], !a.isEmpty { attribution = a }
        guard sqlite3_prepare_v2(db, "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                                 -1, &query, nil) == SQLITE_OK else {
            let msg = String(cString: sqlite3_errmsg(db))
            closeDatabase()
            throw MapRenderError(.inputMalformed, "--tiles: \(path) is not an MBTiles file: \(msg)")
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
        while sqlite3_step(stmt) == SQLITE_ROW {
            guard let n = sqlite3_column_text(stmt, 0), let v = sqlite3_column_text(stmt, 1) else { continue }
            out[String(cString: n)] = String(cString: v)
        }
        return out
    }

    func fetch(_ t: TileID, retina: Bool, attempt: Int) -> TileFetch {
        if let b = bounds, !TileBounds.intersects(t, b) { return .missing }
        lock.lock(); defer { lock.unlock() }
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
        default:
            return .failed("\(name): tile \(t): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
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
