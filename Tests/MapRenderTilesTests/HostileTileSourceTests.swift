import CSQLite
import Foundation
import Testing
import TestSupport
@testable import MapRenderCore
@testable import MapRenderTiles

/// Issue 45: hostile tilesets. Each test is named by the attack, builds the hostile file in a
/// fresh folder, and checks the exact error (or tile outcome) instead of a trap, hang or blow-up.
@Suite struct HostileTileSourceTests {
    func folder() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-tiles-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// The error opening `path` as PMTiles gives.
    func openError(_ path: String) -> String? {
        do { _ = try PMTilesSource(reader: FileRangeReader(path: path)); return nil }
        catch let e as MapRenderError { return e.message }
        catch { return "\(error)" }
    }

    // MARK: - PMTiles

    @Test func theWriterMakesAReadableFile() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let s = try PMTilesSource(reader: FileRangeReader(path: try HostilePMTiles.file(in: d)))
        guard case .data(let bytes, _) = s.fetch(TileID(z: 0, x: 0, y: 0), retina: false) else {
            Issue.record("tile 0/0/0 not read"); return
        }
        #expect(try TileService.decode(bytes, name: "t").width == 256)
    }

    @Test func aRootOffsetPlusLengthThatOverflowsIsRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try HostilePMTiles.file(in: d) { $0.root = (UInt64.max - 10, 100) }
        #expect(openError(p) == "--tiles: \(p): the header's root directory offset 18446744073709551605 + length 100 is out of range")
    }

    @Test func aRootLengthPast2To63IsRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try HostilePMTiles.file(in: d) { $0.root.1 = (1 << 63) + 5 }
        #expect(openError(p) == "--tiles: \(p): the header's root directory offset 127 + length 9223372036854775813 is out of range")
        let q = try HostilePMTiles.file(in: d) { $0.data.0 = 1 << 63 }
        #expect(openError(q)?.hasPrefix("--tiles: \(q): the header's tile data offset 9223372036854775808 + length ") == true)
    }

    @Test func aRootLengthOf1TBIsRefusedBeforeAnyBuffer() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try HostilePMTiles.file(in: d) { $0.root.1 = 1 << 40 }
        let size = try FileManager.default.attributesOfItem(atPath: p)[.size] as! Int
        #expect(openError(p) == "--tiles: \(p): the header's root directory (offset 127, length 1099511627776) runs past the end of the file (\(size) bytes)")
        // Over HTTP the file's length is not known: the directory limit refuses it.
        var h = try PMTilesSource.parseHeader(Data(contentsOf: URL(fileURLWithPath: p)), name: "u")
        h.rootLength = 1 << 40
        #expect(throws: MapRenderError(.inputMalformed, "--tiles: u: the header's root directory length 1099511627776 is not in 1...16777216 (16 MiB)")) {
            try PMTilesSource.validate(h, fileSize: nil, name: "u")
        }
    }

    @Test func aFirstDirectoryEntryWithOffset0IsRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try HostilePMTiles.file(in: d, root: HostilePMTiles.directory([(id: 0, run: 1, length: 100, storedOffset: 0)]))
        #expect(openError(p) == "--tiles: \(p): a directory is corrupt: the first entry has offset 0 (\"after the previous one\")")
    }

    @Test func anEntryOutsideTheTileDataFailsItsTile() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        for stored in [UInt64.max, 1 << 40, 2] {
            let p = try HostilePMTiles.file(in: d, root: HostilePMTiles.directory([(id: 0, run: 1, length: 16936, storedOffset: stored)]))
            let s = try PMTilesSource(reader: FileRangeReader(path: p))
            guard case .failed(let why) = s.fetch(TileID(z: 0, x: 0, y: 0), retina: false) else {
                Issue.record("offset \(stored): not failed"); continue
            }
            #expect(why == "\(p): tile 0/0/0: a directory entry (offset \(stored - 1), length 16936) lies outside the tile data (16936 bytes)")
        }
    }

    @Test func directoryLengthsAndRunsPast32BitsAreRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try HostilePMTiles.file(in: d, root: HostilePMTiles.directory([(id: 0, run: 1, length: 1 << 40, storedOffset: 1)]))
        #expect(openError(p) == "--tiles: \(p): a directory is corrupt: a length of 1099511627776")
        let q = try HostilePMTiles.file(in: d, root: HostilePMTiles.varint(1 << 40))
        #expect(openError(q) == "--tiles: \(q): a directory is corrupt: it claims 1099511627776 entries in 6 bytes")
    }

    @Test func aGzipBombDirectoryStopsAt16MiB() throws {
        // 20 MiB of zeros, deflated to about 20 KB, as the root directory.
        let z = Process()
        z.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        z.arguments = ["python3", "-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(bytes(20 << 20), 9))"]
        let pipe = Pipe(); z.standardOutput = pipe
        try z.run()
        let bomb = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        z.waitUntilExit()
        #expect(bomb.count < 100_000)
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try HostilePMTiles.file(in: d, root: bomb) { $0.internalCompression = 2 }
        #expect(openError(p) == "--tiles: \(p): a gzip directory inflates to more than 16 MiB")
    }

    @Test func sixteenThreadsOnOneLeafInflateItOnce() throws {
        let path = TileFixtures.path("ne-leaves.pmtiles")
        let serial = try PMTilesSource(reader: FileRangeReader(path: path))
        for t in TileFixtures.all { _ = serial.fetch(t, retina: false) }
        #expect(serial.leafLoads > 0)
        for _ in 0..<5 {
            let parallel = try PMTilesSource(reader: FileRangeReader(path: path))
            let tiles = Array(repeating: TileFixtures.all, count: 4).flatMap { $0 }
            DispatchQueue.concurrentPerform(iterations: 16) { k in
                for t in tiles[(k * tiles.count / 16)..<((k + 1) * tiles.count / 16)] { _ = parallel.fetch(t, retina: false) }
            }
            #expect(parallel.leafLoads == serial.leafLoads)
        }
    }

    @Test func minZoom32AndOtherZoomsPast30AreRefusedAtOpen() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        for (lo, hi) in [(32, 33), (64, 64), (0, 255), (5, 3)] as [(UInt8, UInt8)] {
            let p = try HostilePMTiles.file(in: d) { $0.minZoom = lo; $0.maxZoom = hi }
            #expect(openError(p) == "--tiles: \(p): the header's zooms \(lo)...\(hi) are not within 0...30")
        }
    }

    @Test func aFIFONamedPMTilesDoesNotHang() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = d.appendingPathComponent("fifo.pmtiles").path
        #expect(mkfifo(p, 0o600) == 0)
        #expect(openError(p) == "--tiles: \(p) is not a regular file")
    }

    // MARK: - Zooms anywhere in the tile layer

    @Test func coverageWithZoomsPast30OrNegativeStaysInRange() {
        let view = ViewFitter.center(lat: 0, lon: 0, zoom: 1, width: 300, height: 300)
        let high = TileCoverage.cover(view, zoom: 2, minZoom: 64, maxZoom: 64)
        #expect(high.zoom == 30 && high.placements.count <= 4096)
        let low = TileCoverage.cover(view, zoom: 2, minZoom: -5, maxZoom: -3)
        #expect(low.zoom == 0 && low.placements.count == 1)
        #expect(TileCoverage.tileZoom(viewZoom: .infinity, tileSize: 256, scale: 1) == 0)
        #expect(TileCoverage.tileZoom(viewZoom: 1, tileSize: 256, scale: 1e-300) == -64)
    }

    @Test func aTileFolderWhoseOnlySubfolderIs40IsRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        try FileManager.default.createDirectory(at: d.appendingPathComponent("40"), withIntermediateDirectories: true)
        #expect(throws: MapRenderError(.inputMalformed, "--tiles: folder \(d.path) has no zoom folders 0...30 (expected z/x/y.png)")) {
            try FolderTileSource(path: d.path)
        }
    }

    @Test func aFIFOOrDeviceTileFailsInsteadOfHanging() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let zero = d.appendingPathComponent("0/0")
        try FileManager.default.createDirectory(at: zero, withIntermediateDirectories: true)
        #expect(mkfifo(zero.appendingPathComponent("0.png").path, 0o600) == 0)
        let s = try FolderTileSource(path: d.path)
        guard case .failed(let why) = s.fetch(TileID(z: 0, x: 0, y: 0), retina: false) else { Issue.record("FIFO tile not failed"); return }
        #expect(why == "\(d.path)/0/0/0.png: not a regular file")
        try FileManager.default.createDirectory(at: d.appendingPathComponent("1/0"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: d.appendingPathComponent("1/0/0.png").path, withDestinationPath: "/dev/zero")
        guard case .failed(let dev) = s.fetch(TileID(z: 1, x: 0, y: 0), retina: false) else { Issue.record("/dev/zero tile not failed"); return }
        #expect(dev == "\(d.path)/1/0/0.png: not a regular file")
    }

    // MARK: - MBTiles

    /// An MBTiles file made by running `sql`.
    func mbtiles(_ dir: URL, _ sql: String) throws -> String {
        let p = dir.appendingPathComponent("t-\(UUID().uuidString.prefix(8)).mbtiles").path
        var db: OpaquePointer?
        #expect(sqlite3_open(p, &db) == SQLITE_OK)
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &err)
        #expect(rc == SQLITE_OK, "\(err.map { String(cString: $0) } ?? "")")
        sqlite3_close(db)
        return p
    }

    static let tilesTable = "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);"
    static let endless = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "

    @Test func mbtilesMinZoomPast30OrAnInt32OverflowIsRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        for (key, value) in [("minzoom", "40"), ("maxzoom", "4294967296"), ("minzoom", "-1")] {
            let p = try mbtiles(d, Self.tilesTable + "CREATE TABLE metadata (name TEXT, value TEXT); INSERT INTO metadata VALUES ('\(key)', '\(value)');")
            #expect(throws: MapRenderError(.inputMalformed, "--tiles: \(p): metadata \(key) \(value) is not within 0...30")) {
                try MBTilesSource(path: p)
            }
        }
    }

    @Test func anMBTilesMetadataViewThatNeverEndsIsStopped() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try mbtiles(d, Self.tilesTable + "CREATE VIEW metadata AS " + Self.endless + "SELECT 'name' AS name, 'x' AS value FROM r WHERE n < 0;")
        let started = Date()
        #expect(throws: MapRenderError(.inputMalformed, "--tiles: \(p): reading the metadata table took more than 0.3 s and was stopped (a view that never ends?)")) {
            try MBTilesSource(path: p, queryTimeLimit: 0.3)
        }
        #expect(Date().timeIntervalSince(started) < 1.5)
    }

    @Test func anMBTilesTilesViewThatNeverEndsIsStopped() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try mbtiles(d, "CREATE TABLE metadata (name TEXT, value TEXT); CREATE VIEW tiles AS " + Self.endless
                            + "SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r WHERE n < 0;")
        let started = Date()
        #expect(throws: MapRenderError(.inputMalformed, "--tiles: \(p): reading the tiles table took more than 0.3 s and was stopped (a view that never ends?)")) {
            try MBTilesSource(path: p, queryTimeLimit: 0.3)
        }
        #expect(Date().timeIntervalSince(started) < 1.5)
    }

    // MARK: - Retry-After

    @Test func retryAfterInfNaNNegativeAnd1e30AreInvalidAndHugeIsClamped() {
        for v in ["inf", "-inf", "nan", "1e30", "-5", "0x10", "", "soon"] { #expect(TileHTTPClient.retryAfter(v) == nil, "\(v)") }
        #expect(TileHTTPClient.retryAfter(" 2 ") == 2)
        #expect(TileHTTPClient.retryAfter("1.5") == 1.5)
        #expect(TileHTTPClient.retryAfter(String(repeating: "9", count: 400)) == 1e9)
        #expect(TileHTTPClient.retryAfter("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        // Not ASCII: refused before Foundation's DateFormatter, which stopped the process on this
        // one (found by the http-headers fuzzer: "Incorrect range CFRange").
        #expect(TileHTTPClient.retryAfter("Fri, 21\u{ECB}\u{FFFD}y-999 2:49:59 GMT") == nil)
        #expect(TileHTTPClient.retryAfter("Thu, 01 Jan 1970 00:00:00 GMT\u{E9}") == nil)
    }

    // MARK: - Tile images: sizes from the header, before decoding

    func fixture(_ name: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: TileFixtures.path(name)))) }

    func decodeError(_ bytes: [UInt8]) -> String? {
        do { _ = try TileService.decode(Data(bytes), name: "t"); return nil }
        catch let e as MapRenderError { return e.message }
        catch { return "\(error)" }
    }

    @Test func aPNGClaiming8192SquaredIsRefusedFromItsHeader() throws {
        var png = try fixture("tile-2-1-1.png")
        png.replaceSubrange(16..<24, with: [0, 0, 0x20, 0, 0, 0, 0x20, 0])  // IHDR: 8192 x 8192
        #expect(decodeError(png) == "t: not a readable image: PNG is 8192x8192 pixels, outside 1x1...4096x4096")
    }

    @Test func aJPEGHeaderClaiming65000SquaredIsRefusedBeforeLibjpegAllocates() throws {
        var jpeg = try fixture("tile-2-1-1.jpg")
        // The frame header (SOF0...SOF2): FF C0-C2, length, precision, height, width.
        let sof = try #require((2..<jpeg.count - 9).first { jpeg[$0] == 0xFF && (0xC0...0xC2).contains(jpeg[$0 + 1]) })
        jpeg.replaceSubrange(sof + 5..<sof + 9, with: [0xFD, 0xE8, 0xFD, 0xE8])  // 65000 x 65000
        #expect(decodeError(jpeg) == "t: not a readable image: JPEG is 65000x65000 pixels, outside 1x1...4096x4096")
    }

    @Test func aWebPClaiming8192SquaredIsRefusedFromItsHeader() throws {
        var webp = try fixture("tile-2-1-1.webp")
        #expect(webp[12..<16].elementsEqual("VP8L".utf8) && webp[20] == 0x2F)  // lossless: 14-bit sides - 1
        let old = UInt32(webp[21]) | UInt32(webp[22]) << 8 | UInt32(webp[23]) << 16 | UInt32(webp[24]) << 24
        let v = (old & 0xF000_0000) | 8191 | 8191 << 14
        webp.replaceSubrange(21..<25, with: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)])
        #expect(decodeError(webp) == "t: not a readable image: WebP is 8192x8192 pixels, outside 1x1...4096x4096")
    }

    @Test func aTruncatedJPEGFailsInsteadOfComingBackHalfGrey() throws {
        let jpeg = try fixture("tile-2-1-1.jpg")
        #expect(decodeError(Array(jpeg.prefix(jpeg.count / 2))) == "t: not a readable image: JPEG data is truncated")
        #expect(decodeError(jpeg) == nil)
        let png = try fixture("tile-2-1-1.png")
        #expect(decodeError(Array(png.prefix(png.count / 2))) != nil)
    }
}
