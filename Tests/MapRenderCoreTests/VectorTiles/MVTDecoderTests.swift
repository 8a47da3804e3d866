import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Writes Mapbox Vector Tiles by hand (protobuf), to test the decoder on what real writers do
/// not produce: wrong winding, geometry far outside the tile, damage.
enum MVTWriter {
    static func varint(_ v: UInt64) -> [UInt8] {
        var v = v, out: [UInt8] = []
        while v >= 0x80 { out.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
        out.append(UInt8(v))
        return out
    }
    static func field(_ n: Int, _ wire: Int) -> [UInt8] { varint(UInt64(n << 3 | wire)) }
    static func bytes(_ n: Int, _ b: [UInt8]) -> [UInt8] { field(n, 2) + varint(UInt64(b.count)) + b }
    static func zz(_ v: Int) -> UInt32 { UInt32(bitPattern: Int32((v << 1) ^ (v >> 31))) }
    static func packed(_ n: Int, _ ints: [UInt32]) -> [UInt8] { bytes(n, ints.flatMap { varint(UInt64($0)) }) }

    /// Geometry integers of rings (polygon) or parts (line) given as absolute (x, y) pairs.
    static func geometry(_ parts: [[(Int, Int)]], closed: Bool) -> [UInt32] {
        var out: [UInt32] = []
        var cx = 0, cy = 0
        for part in parts {
            out.append(UInt32(1 << 3 | 1))
            out += [zz(part[0].0 - cx), zz(part[0].1 - cy)]
            cx = part[0].0; cy = part[0].1
            out.append(UInt32((part.count - 1) << 3 | 2))
            for p in part.dropFirst() { out += [zz(p.0 - cx), zz(p.1 - cy)]; cx = p.0; cy = p.1 }
            if closed { out.append(UInt32(1 << 3 | 7)) }
        }
        return out
    }

    static func feature(type: Int, geometry: [UInt32], tags: [UInt32] = [], id: UInt64? = nil) -> [UInt8] {
        var f: [UInt8] = []
        if let id { f += field(1, 0) + varint(id) }
        if !tags.isEmpty { f += packed(2, tags) }
        f += field(3, 0) + varint(UInt64(type))
        f += packed(4, geometry)
        return f
    }

    static func layer(_ name: String, features: [[UInt8]], keys: [String] = [], values: [String] = [], extent: Int = 4096) -> [UInt8] {
        var l = field(15, 0) + varint(2) + bytes(1, Array(name.utf8))
        for f in features { l += bytes(2, f) }
        for k in keys { l += bytes(3, Array(k.utf8)) }
        for v in values { l += bytes(4, bytes(1, Array(v.utf8))) }
        l += field(5, 0) + varint(UInt64(extent))
        return l
    }

    static func tile(_ layers: [[UInt8]]) -> [UInt8] { layers.flatMap { bytes(3, $0) } }
}

@Suite struct MVTDecoderTests {
    func decode(_ bytes: [UInt8], _ t: TileID = TileID(z: 0, x: 0, y: 0)) throws -> [String: VectorLayerData] {
        var out: [String: VectorLayerData] = [:]
        try MVTDecoder.decode(bytes, tile: t, layers: nil, into: &out)
        return out.mapValues { $0.finished() }
    }

    @Test func zigzag() {
        #expect(MVTDecoder.zigzag(0) == 0)
        #expect(MVTDecoder.zigzag(1) == -1)
        #expect(MVTDecoder.zigzag(2) == 1)
        #expect(MVTDecoder.zigzag(3) == -2)
        #expect(MVTDecoder.zigzag(UInt32.max) == Int64(Int32.min))
    }

    /// A square with a hole, written with the spec's winding, and the same wound the wrong way
    /// round (every ring reversed): both are one polygon with one hole, as MapLibre classifies them.
    @Test func windingEitherWay() throws {
        let outer = [(1024, 1024), (3072, 1024), (3072, 3072), (1024, 3072), (1024, 1024)]  // clockwise on screen
        let hole = [(1536, 1536), (1536, 2560), (2560, 2560), (2560, 1536), (1536, 1536)]
        for rings in [[outer, hole], [Array(outer.reversed()), Array(hole.reversed())]] {
            let g = MVTWriter.geometry(rings.map { Array($0.dropLast()) }, closed: true)
            let t = MVTWriter.tile([MVTWriter.layer("water", features: [MVTWriter.feature(type: 3, geometry: g, tags: [0, 0])],
                                                    keys: ["class"], values: ["lake"])])
            let d = try #require(try decode(t)["water"])
            #expect(d.polygons.shapeCount == 1)
            #expect(d.polygons.rings(of: 0).count == 2)
            #expect(d.properties.value("class", row: 0) == .string("lake"))
            #expect(d.properties.value("$type", row: 0) == .string("Polygon"))
            // The outer ring spans the middle half of the world's width: -90° to 90°.
            let lons = stride(from: 0, to: d.polygons.coords.count, by: 2).map { d.polygons.coords[$0] }
            #expect(abs(lons.min()! + 90) < 1e-9 && abs(lons.max()! - 90) < 1e-9)
            // Its outline, for line layers, is the two rings as closed lines.
            #expect(d.lines.shapeCount == 1 && d.lines.rings(of: 0).count == 2)
        }
        // Two outer rings in a row (no hole) are two polygons; a ring of zero area is dropped.
        let flat = [(0, 0), (100, 0), (200, 0)]
        let g = MVTWriter.geometry([Array(outer.dropLast()), flat, Array(hole.reversed().dropLast())], closed: true)
        let d = try #require(try decode(MVTWriter.tile([MVTWriter.layer("l", features: [MVTWriter.feature(type: 3, geometry: g)])]))["l"])
        #expect(d.polygons.shapeCount == 2)
    }

    /// Geometry in the clipping buffer (and far outside) is cut at the tile's edges, as
    /// MapLibre's stencil cuts it: a polygon over the whole buffer fills exactly the tile, a line
    /// through it keeps only its inside part, a point in the buffer is the neighbour's.
    @Test func clippedToTheTile() throws {
        let big = [(-80, -80), (4176, -80), (4176, 4176), (-80, 4176)]
        let line = [(-500, 2048), (5000, 2048)]
        let t = MVTWriter.tile([MVTWriter.layer("x", features: [
            MVTWriter.feature(type: 3, geometry: MVTWriter.geometry([big], closed: true)),
            MVTWriter.feature(type: 2, geometry: MVTWriter.geometry([line], closed: false)),
            MVTWriter.feature(type: 1, geometry: [UInt32(2 << 3 | 1), MVTWriter.zz(-10), MVTWriter.zz(10), MVTWriter.zz(2058), MVTWriter.zz(0)]),
        ])])
        let tile = TileID(z: 2, x: 2, y: 1)   // 0°...90° E, 0°...66.51° N
        let d = try #require(try decode(t, tile)["x"])
        let lon = stride(from: 0, to: d.polygons.coords.count, by: 2).map { d.polygons.coords[$0] }
        let lat = stride(from: 1, to: d.polygons.coords.count, by: 2).map { d.polygons.coords[$0] }
        #expect(abs(lon.min()!) < 1e-9 && abs(lon.max()! - 90) < 1e-9)
        #expect(abs(lat.min()!) < 1e-9 && abs(lat.max()! - 66.51326044311186) < 1e-9)
        // The line: the second shape of `lines` (the first is the polygon's outline, inside the
        // tile only along nothing: its ring lies wholly in the buffer, so it has no part).
        #expect(d.lines.shapeCount == 1)
        let lineLons = d.lines.vertices(of: 0).map { d.lines.coords[2 * $0] }
        #expect(abs(lineLons.first!) < 1e-9 && abs(lineLons.last! - 90) < 1e-9)
        #expect(d.pointCount == 1)   // (-10, 10) is in the buffer; (2048, 10) inside
        #expect(d.featureCount == 3)
    }

    /// Damaged tiles throw a `VectorTileError` (the stage warns with the tile's z/x/y); none traps.
    @Test func malformedTilesThrow() throws {
        let good = MVTWriter.tile([MVTWriter.layer("x", features: [
            MVTWriter.feature(type: 2, geometry: MVTWriter.geometry([[(0, 0), (10, 10)]], closed: false), tags: [0, 0]),
        ], keys: ["k"], values: ["v"])])
        #expect(throws: Never.self) { try decode(good) }
        func fails(_ b: [UInt8], _ text: String) {
            do { _ = try decode(b); Issue.record("no error for \(text)") } catch let e as VectorTileError {
                #expect(e.description.contains(text), "\(e.description)")
            } catch { Issue.record("\(error)") }
        }
        fails(Array(good.dropLast(3)), "truncated")
        fails(MVTWriter.tile([MVTWriter.layer("x", features: [MVTWriter.feature(type: 2, geometry: [UInt32(5 << 3 | 1), 2, 2])])]), "runs past its end")
        fails(MVTWriter.tile([MVTWriter.layer("x", features: [MVTWriter.feature(type: 2, geometry: [UInt32(1 << 3 | 4), 2, 2])])]), "unknown command 4")
        fails(MVTWriter.tile([MVTWriter.layer("x", features: [MVTWriter.feature(type: 2, geometry: [UInt32(1 << 3 | 2), 2, 2])])]), "before moving")
        fails(MVTWriter.tile([MVTWriter.layer("x", features: [MVTWriter.feature(type: 2, geometry: MVTWriter.geometry([[(0, 0), (1, 1)]], closed: false), tags: [3, 0])], keys: ["k"], values: ["v"])]), "names key 3")
        fails(MVTWriter.tile([MVTWriter.layer("x", features: [], extent: 0)]), "extent is 0")
        fails([0x1a, 0xff, 0xff, 0xff, 0xff, 0x0f], "truncated")
        fails([0x0b], "wire type 3")
    }

    /// Seeded random damage to a real tile (bytes flipped, cut, spliced) never traps.
    @Test func randomDamageNeverTraps() throws {
        let path = TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/xyz/1/1/0.pbf")
        let tile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var rng = SeededRandom(seed: 42)
        var errors = 0
        for _ in 0..<300 {
            var b = tile
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let i = Int.random(in: 0..<b.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: b[i] = UInt8.random(in: 0...255, using: &rng)
                case 1: b.removeSubrange(i..<min(b.count, i + Int.random(in: 1...64, using: &rng)))
                default: b.insert(contentsOf: b[i..<min(b.count, i + 16)], at: Int.random(in: 0..<b.count, using: &rng))
                }
                if b.isEmpty { b = [0] }
            }
            do { _ = try decode(b, TileID(z: 1, x: 1, y: 0)) } catch is VectorTileError { errors += 1 }
        }
        #expect(errors > 0)
    }

    /// The fixture's tiles against an independent decoder: Python's mapbox-vector-tile (PyPI,
    /// installed by scripts/deps.sh) reads every tile of zooms 0-2. Each feature this decoder keeps
    /// (something of it inside its tile) has the layer, geometry type and properties of one of
    /// Python's; every point inside its tile is at the same place, and none is missed.
    @Test func fixturesMatchPythonDecoder() throws {
        let dir = TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/vector/xyz")
        let script = """
            import json, os, sys, mapbox_vector_tile
            out = {}
            root = sys.argv[1]
            for z in sorted(os.listdir(root)):
                for x in sorted(os.listdir(os.path.join(root, z))):
                    for f in sorted(os.listdir(os.path.join(root, z, x))):
                        t = mapbox_vector_tile.decode(open(os.path.join(root, z, x, f), "rb").read(), y_coord_down=True)
                        key = f"{z}/{x}/{f[:-4]}"
                        out[key] = {}
                        for name, l in t.items():
                            feats = []
                            for feat in l["features"]:
                                g = feat["geometry"]
                                pts = []
                                if g["type"] == "Point": pts = [g["coordinates"]]
                                elif g["type"] == "MultiPoint": pts = g["coordinates"]
                                pts = [p for p in pts if 0 <= p[0] < l["extent"] and 0 <= p[1] < l["extent"]]
                                feats.append({"type": g["type"].replace("Multi", ""), "props": feat["properties"],
                                              "points": pts, "extent": l["extent"]})
                            out[key][name] = feats
            print(json.dumps(out))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, dir]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            Issue.record("python3 with mapbox_vector_tile failed (scripts/deps.sh installs mapbox-vector-tile)")
            return
        }
        let reference = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: [[String: Any]]]])
        #expect(reference.count == 21)
        var pointsCompared = 0
        for (key, layers) in reference {
            let zxy = key.split(separator: "/").map { Int($0)! }
            let tile = TileID(z: zxy[0], x: zxy[1], y: zxy[2])
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(key).pbf")))
            let ours = try decode(bytes, tile)
            #expect(Set(ours.keys).isSubset(of: Set(layers.keys)), "\(key)")
            for (name, features) in layers {
                func sig(_ type: String, _ props: [(String, PropertyValue)]) -> String {
                    type + " " + props.filter { !$0.0.hasPrefix("$") }.sorted { $0.0 < $1.0 }
                        .map { "\($0.0)=\($0.1.displayText ?? "null")" }.joined(separator: ",")
                }
                var theirs: [String: Int] = [:]
                var theirPoints: [String] = []
                for f in features {
                    let props = (f["props"] as! [String: Any]).map { (k, v) -> (String, PropertyValue) in
                        if let s = v as? String { return (k, .string(s)) }
                        return (k, .number((v as! NSNumber).doubleValue))
                    }
                    let s = sig(f["type"] as! String, props)
                    theirs[s, default: 0] += 1
                    let extent = (f["extent"] as! NSNumber).doubleValue
                    for pt in f["points"] as! [[NSNumber]] {
                        let n = Double(1 << tile.z)
                        let lon = (Double(tile.x) + pt[0].doubleValue / extent) / n * 360 - 180
                        let lat = WebMercator.lat(y: (Double(tile.y) + pt[1].doubleValue / extent) / n)
                        theirPoints.append(String(format: "%@ %.9f %.9f", s, lon, lat))
                    }
                }
                guard let d = ours[name] else { #expect(theirPoints.isEmpty); continue }
                var mine: [String: Int] = [:]
                for r in 0..<d.featureCount {
                    mine[sig(d.properties.value("$type", row: r).displayText ?? "", d.properties.row(r)), default: 0] += 1
                }
                for (s, n) in mine { #expect(n <= theirs[s, default: 0], "\(key) \(name): \(s)") }
                let ourPoints = (0..<d.pointCount).map { i -> String in
                    let r = Int(d.pointRows[i])
                    let s = sig("Point", d.properties.row(r))
                    return String(format: "%@ %.9f %.9f", s, d.pointCoords[2 * i], d.pointCoords[2 * i + 1])
                }
                #expect(ourPoints.sorted() == theirPoints.sorted(), "\(key) \(name)")
                pointsCompared += ourPoints.count
            }
        }
        #expect(pointsCompared > 100)
    }
}
