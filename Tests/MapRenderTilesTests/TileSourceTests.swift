import Foundation
import Testing
import TestSupport
@testable import MapRenderCore
@testable import MapRenderTiles

enum TileFixtures {
    static let dir = TestPaths.repo.appendingPathComponent("Tests/MapRenderTilesTests/Fixtures").path
    static func path(_ name: String) -> String { dir + "/" + name }
    /// Every tile of the fixtures: zooms 0-3.
    static let all: [TileID] = (0...3).flatMap { z in (0..<(1 << z)).flatMap { x in (0..<(1 << z)).map { TileID(z: z, x: x, y: $0) } } }
    static func folderBytes(_ t: TileID) -> Data? { FileManager.default.contents(atPath: path("folder/\(t.z)/\(t.x)/\(t.y).png")) }
}

@Suite struct TileSourceTests {
    func bytes(_ f: TileFetch) -> Data? { if case .data(let d, _) = f { return d } else { return nil } }

    @Test func mbtilesAndPMTilesGiveTheFolderTiles() throws {
        // The MBTiles (TMS rows) and PMTiles files were packaged by Python's sqlite3 and the pmtiles
        // package from the folder's files: every tile must come back byte for byte.
        let sources: [TileSource] = [
            try FolderTileSource(path: TileFixtures.path("folder")),
            try MBTilesSource(path: TileFixtures.path("ne.mbtiles")),
            try PMTilesSource(reader: FileRangeReader(path: TileFixtures.path("ne.pmtiles"))),
            try PMTilesSource(reader: FileRangeReader(path: TileFixtures.path("ne-leaves.pmtiles"))),
        ]
        for s in sources {
            #expect(s.minZoom == 0 && s.maxZoom == 3, "\(s.name)")
            for t in TileFixtures.all {
                let d = bytes(s.fetch(t, retina: false))
                #expect(d != nil && d == TileFixtures.folderBytes(t), "\(s.name) tile \(t)")
            }
            // Beyond the pyramid: missing, not an error.
            guard case .missing = s.fetch(TileID(z: 4, x: 3, y: 3), retina: false) else {
                Issue.record("\(s.name): a tile past max zoom should be missing"); continue
            }
        }
    }

    @Test func metadataIsRead() throws {
        let mb = try MBTilesSource(path: TileFixtures.path("ne.mbtiles"))
        #expect(mb.attribution == "Natural Earth (MBTiles)")
        #expect(mb.format == "png")
        #expect(abs((mb.bounds?.north ?? 0) - 85.0511) < 1e-9)
        let pm = try PMTilesSource(reader: FileRangeReader(path: TileFixtures.path("ne.pmtiles")))
        #expect(pm.attribution == "Natural Earth (PMTiles)")
        #expect(pm.header.internalCompression == 2)  // gzip directories
        #expect(pm.header.tileType == 2)  // PNG
        let leaves = try PMTilesSource(reader: FileRangeReader(path: TileFixtures.path("ne-leaves.pmtiles")))
        #expect(leaves.header.leafLength > 0)
    }

    @Test func pngJpegAndWebPDecodeToTheSamePicture() throws {
        let png = try TileService.decode(Data(contentsOf: URL(fileURLWithPath: TileFixtures.path("tile-2-1-1.png"))), name: "png")
        let webp = try TileService.decode(Data(contentsOf: URL(fileURLWithPath: TileFixtures.path("tile-2-1-1.webp"))), name: "webp")
        let jpeg = try TileService.decode(Data(contentsOf: URL(fileURLWithPath: TileFixtures.path("tile-2-1-1.jpg"))), name: "jpeg")
        #expect(png.width == 256 && png.height == 256)
        #expect(webp.rgba == png.rgba)  // lossless WebP written by Pillow
        #expect(jpeg.width == 256 && jpeg.height == 256)
        let meanError = zip(jpeg.rgba, png.rgba).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(png.rgba.count)
        #expect(meanError < 3)
        // The sea at the tile's centre (the North Atlantic) is blue in all three.
        let i = (128 * 256 + 128) * 4
        for img in [png, webp, jpeg] { #expect(img.rgba[i + 2] > img.rgba[i]) }
    }

    @Test func badInputGivesOneClearLine() throws {
        #expect { try TileService.decode(Data("<html>".utf8), name: "x tile 1/2/3") } throws: { e in
            "\(e)" == "x tile 1/2/3: not a readable image: not a PNG, JPEG or WebP image"
        }
        var opts = TileOptions()
        #expect { try TileSourceSpec.parse("https://t.example.org/{x}/{y}.png", options: opts) } throws: { e in
            "\(e)".contains("has no {z}")
        }
        #expect { try TileSourceSpec.parse("/nonexistent/tiles.mbtiles", options: opts) } throws: { e in
            (e as? MapRenderError)?.kind == .inputUnreadable && "\(e)".contains("osm, carto-light, carto-dark, opentopomap")
        }
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-tiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        // Not SQLite.
        let junk = tmp.appendingPathComponent("junk.mbtiles").path
        FileManager.default.createFile(atPath: junk, contents: Data(repeating: 7, count: 4096))
        #expect { try MBTilesSource(path: junk) } throws: { e in "\(e)".contains(junk) && (e as? MapRenderError) != nil }
        // PMTiles version 2.
        var v2 = try Data(contentsOf: URL(fileURLWithPath: TileFixtures.path("ne.pmtiles")))
        v2[7] = 2
        let v2path = tmp.appendingPathComponent("old.pmtiles").path
        FileManager.default.createFile(atPath: v2path, contents: v2)
        #expect { try PMTilesSource(reader: FileRangeReader(path: v2path)) } throws: { e in
            "\(e)" == "--tiles: \(v2path) is PMTiles version 2; maprender reads version 3"
        }
        opts.tileSize = 300
        #expect(throws: MapRenderError.self) { try opts.validate() }
    }

    @Test func urlTemplates() throws {
        let t = try TileURLTemplate("https://{s}.t.example.org/{z}/{x}/{-y}{r}.png", subdomains: ["a", "b"])
        #expect(t.url(TileID(z: 3, x: 2, y: 1), retina: false) == "https://b.t.example.org/3/2/6.png")
        #expect(t.url(TileID(z: 3, x: 2, y: 2), retina: true) == "https://a.t.example.org/3/2/5@2x.png")
        let osm = try TileSourceSpec.parse("osm", options: TileOptions())
        #expect(osm.attribution == "© OpenStreetMap contributors" && osm.maxZoom == 19)
        guard case .template(let ot) = osm.kind else { Issue.record("osm is a template"); return }
        #expect(ot.url(TileID(z: 1, x: 0, y: 1), retina: false) == "https://tile.openstreetmap.org/1/0/1.png")
    }
}
