import Foundation

// Vector tile basemaps: where they sit in the pipeline.
//
//   view → which tiles (floor of the zoom, as MapLibre picks 512-px vector tiles; clamped to the
//   source's zooms: past its maximum the last level is used, overzoomed)
//     → MapRenderTiles fetches the bytes (folder, MBTiles, PMTiles, HTTP, disk cache) and inflates gzip
//     → MVTDecoder (here): protobuf → features of the layers the style reads, each geometry clipped
//       to its tile, rings classified, projected to lon/lat, appended to one `VectorLayerData`
//       per source layer
//     → the style's layers draw those as `MapLayer.shapes` through ShapeLayout, like any basemap.

/// A malformed tile: what is wrong, for a warning naming the tile.
public struct VectorTileError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The tile is well formed but holds more vertices than it was allowed (`decode`'s
    /// `vertexLimit`): a memory refusal, not a malformed tile.
    public var overLimit = false
    init(_ d: String, overLimit: Bool = false) { description = d; self.overLimit = overLimit }
}

/// Decodes Mapbox Vector Tiles (spec 2.1): a hand-written protobuf reader.
///
/// Why by hand rather than swift-protobuf: a tile has four message types of a handful of fields
/// each; this reader is ~200 lines with no generated code and no plugin build (swift-protobuf's
/// code generator takes minutes to build), reads straight from the tile's bytes without making a
/// message object per feature, and skips whole layers the style does not read by their length.
/// It decodes a 50 kB z4 tile of the fixtures in well under a millisecond.
///
/// Every read is bounds-checked; a tile that lies (a length past its end, a geometry command
/// running past its integers, a tag index past the keys) throws `VectorTileError`, never traps.
public enum MVTDecoder {
    /// The most vertices one tile may give (all layers): past it the tile is refused.
    public static let vertexLimit = 4_000_000

    /// The bytes a decoded vertex takes, reckoned generously: its two `Double`s in the layer's
    /// `ShapeSet`, the command decoding's part arrays, and the clipping's copies. The
    /// basemap-style stage turns a tile's share of `--max-memory` into a `vertexLimit` with it.
    public static let bytesPerVertex = 64

    /// Decodes `bytes` (not gzip: inflate first) as tile `tile`, appending the features of the
    /// layers in `layers` (all when nil) to `into[layerName]`.
    ///
    /// - Parameter vertexLimit: the most vertices this tile may give (at most the type's
    ///   `vertexLimit`); past it `VectorTileError` with `overLimit` is thrown before the vertices
    ///   are decoded.
    public static func decode(_ bytes: [UInt8], tile: TileID, layers wanted: Set<String>?,
                              into out: inout [String: VectorLayerData], vertexLimit limit: Int = vertexLimit) throws {
        let cap = max(0, min(limit, vertexLimit))
        var budget = cap
        try bytes.withUnsafeBufferPointer { buf in
            var r = ProtoReader(buf, 0, buf.count)
            while !r.atEnd {
                let (field, wire) = try r.key()
                if field == 3 && wire == 2 {
                    let sub = try r.sub()
                    try decodeLayer(sub, tile: tile, wanted: wanted, into: &out, budget: &budget, limit: cap)
                } else {
                    try r.skip(wire)
                }
            }
        }
    }

    private static func decodeLayer(_ layer: ProtoReader, tile: TileID, wanted: Set<String>?,
                                    into out: inout [String: VectorLayerData], budget: inout Int, limit: Int) throws {
        // First pass: name, extent, keys, values; the features' ranges are kept for the second.
        var r = layer
        var name: String?
        var extent = 4096
        var keys: [String] = []
        var values: [PropertyValue] = []
        var features: [ProtoReader] = []
        var version = 1
        while !r.atEnd {
            let (field, wire) = try r.key()
            switch (field, wire) {
            case (1, 2): name = try r.string()
            case (2, 2): features.append(try r.sub())
            case (3, 2): keys.append(try r.string())
            case (4, 2): values.append(try value(r.sub()))
            case (5, 0):
                let e = try r.varint()
                guard e > 0, e <= 1 << 20 else { throw VectorTileError("a layer's extent is \(e), not in 1...1048576") }
                extent = Int(e)
            case (15, 0): version = Int(truncatingIfNeeded: try r.varint())
            default: try r.skip(wire)
            }
        }
        guard let name else { throw VectorTileError("a layer has no name") }
        guard version <= 2 else { throw VectorTileError("layer \"\(name)\" has version \(version); versions 1 and 2 are read") }
        if let wanted, !wanted.contains(name) { return }
        // Taken out of the dictionary while it grows, so its arrays are not copied.
        var data = out.removeValue(forKey: name) ?? VectorLayerData()
        defer { out[name] = data }
        let columns = keys.map { data.properties.addColumn($0) }
        let typeColumn = data.properties.addColumn("$type"), idColumn = data.properties.addColumn("$id")
        let geom = TileGeometry(tile: tile, extent: Double(extent))
        var ints: [UInt32] = []
        var row: [(Int, PropertyValue)] = []
        for var f in features {
            var type = 0
            var id: UInt64?
            ints.removeAll(keepingCapacity: true)
            row.removeAll(keepingCapacity: true)
            while !f.atEnd {
                let (field, wire) = try f.key()
                switch (field, wire) {
                case (1, 0): id = try f.varint()
                case (2, 2):
                    var p = try f.sub()
                    var k = -1
                    while !p.atEnd {
                        let v = Int(truncatingIfNeeded: try p.varint())
                        if k < 0 { k = v; continue }
                        guard k >= 0, k < keys.count else { throw VectorTileError("layer \"\(name)\": a tag names key \(k) of \(keys.count)") }
                        guard v >= 0, v < values.count else { throw VectorTileError("layer \"\(name)\": a tag names value \(v) of \(values.count)") }
                        row.append((columns[k], values[v]))
                        k = -1
                    }
                    guard k < 0 else { throw VectorTileError("layer \"\(name)\": a feature's tags are odd in number") }
                case (3, 0): type = Int(truncatingIfNeeded: try f.varint())
                case (4, 2):
                    var p = try f.sub()
                    while !p.atEnd { ints.append(UInt32(truncatingIfNeeded: try p.varint())) }
                default: try f.skip(wire)
                }
            }
            guard (1...3).contains(type) else { continue }  // UNKNOWN geometry: ignored, as the spec allows
            budget -= ints.count / 2
            guard budget >= 0 else { throw VectorTileError("more than \(limit) vertices", overLimit: true) }
            let parts = try commands(ints, type: type, layer: name)
            if parts.isEmpty { continue }
            row.append((typeColumn, .string(type == 1 ? "Point" : type == 2 ? "LineString" : "Polygon")))
            if let id { row.append((idColumn, .number(Double(id)))) }
            let before = (data.polygons.shapeCount, data.lines.shapeCount, data.pointRows.count)
            let r = data.properties.rowCount
            switch type {
            case 1: geom.addPoints(parts, row: r, into: &data)
            case 2: geom.addLines(parts, row: r, into: &data)
            default: geom.addPolygons(parts, row: r, into: &data)
            }
            // A feature with nothing inside its tile takes no row.
            if (data.polygons.shapeCount, data.lines.shapeCount, data.pointRows.count) != before {
                data.properties.appendRow(row)
            }
        }
    }

    /// The geometry's parts (points, line parts or rings) in tile coordinates, from its command
    /// integers: MoveTo (1), LineTo (2) with zig-zag delta pairs, ClosePath (7).
    static func commands(_ ints: [UInt32], type: Int, layer: String) throws -> [[Double]] {
        var parts: [[Double]] = []
        var current: [Double] = []
        var x: Int64 = 0, y: Int64 = 0
        var i = 0
        func fail(_ why: String) -> VectorTileError { VectorTileError("layer \"\(layer)\": a feature's geometry \(why)") }
        while i < ints.count {
            let c = ints[i]; i += 1
            let cmd = c & 7, count = Int(c >> 3)
            switch cmd {
            case 1, 2:
                guard count > 0 else { throw fail("has a command with count 0") }
                guard count <= (ints.count - i) / 2 else { throw fail("runs past its end (\(count) pairs, \((ints.count - i) / 2) left)") }
                if cmd == 1 {
                    if type != 1 && count != 1 { throw fail("moves \(count) times in one command") }
                    if type != 1, !current.isEmpty { parts.append(current); current = [] }
                } else if current.isEmpty {
                    throw fail("draws a line before moving")
                }
                for _ in 0..<count {
                    x &+= zigzag(ints[i]); y &+= zigzag(ints[i + 1]); i += 2
                    current.append(Double(x)); current.append(Double(y))
                }
            case 7:
                guard type == 3 else { throw fail("closes a path in a \(type == 1 ? "point" : "line")") }
                guard count == 1, !current.isEmpty else { throw fail("has a ClosePath with count \(count) or no path") }
                parts.append(current); current = []
            default:
                throw fail("has unknown command \(cmd)")
            }
        }
        if !current.isEmpty { parts.append(current) }  // a ring left open is closed, as MapLibre does
        if type == 1 { return parts.isEmpty ? [] : [parts.flatMap { $0 }] }
        return parts
    }

    @inline(__always)
    static func zigzag(_ v: UInt32) -> Int64 { Int64(Int32(bitPattern: (v >> 1) ^ (0 &- (v & 1)))) }

    private static func value(_ m: ProtoReader) throws -> PropertyValue {
        var r = m
        var v = PropertyValue.null
        while !r.atEnd {
            let (field, wire) = try r.key()
            switch (field, wire) {
            case (1, 2): v = .string(try r.string())
            case (2, 5): v = .number(Double(Float(bitPattern: try r.fixed32())))
            case (3, 1): v = .number(Double(bitPattern: try r.fixed64()))
            case (4, 0): v = .number(Double(Int64(bitPattern: try r.varint())))
            case (5, 0): v = .number(Double(try r.varint()))
            case (6, 0):
                let u = try r.varint()
                v = .number(Double(Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))))
            case (7, 0): v = .bool(try r.varint() != 0)
            default: try r.skip(wire)
            }
        }
        if case .number(let d) = v, !d.isFinite { return .null }
        return v
    }
}

/// A bounds-checked protobuf reader over part of a buffer.
struct ProtoReader {
    let buf: UnsafeBufferPointer<UInt8>
    var pos: Int
    let end: Int

    init(_ buf: UnsafeBufferPointer<UInt8>, _ pos: Int, _ end: Int) { self.buf = buf; self.pos = pos; self.end = end }

    var atEnd: Bool { pos >= end }

    mutating func varint() throws -> UInt64 {
        var v: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard pos < end else { throw VectorTileError("truncated (a number runs past the end)") }
            let b = buf[pos]; pos += 1
            if shift < 64 { v |= UInt64(b & 0x7f) << shift }
            if b & 0x80 == 0 { return v }
            shift += 7
            guard shift < 70 else { throw VectorTileError("a number is more than 10 bytes long") }
        }
    }

    mutating func key() throws -> (Int, Int) {
        let k = try varint()
        guard k >> 3 > 0, k >> 3 < 1 << 29 else { throw VectorTileError("a field number is \(k >> 3)") }
        return (Int(k >> 3), Int(k & 7))
    }

    mutating func sub() throws -> ProtoReader {
        let n = try varint()
        guard n <= UInt64(end - pos) else { throw VectorTileError("truncated (a field of \(n) bytes, \(end - pos) left)") }
        let r = ProtoReader(buf, pos, pos + Int(n))
        pos += Int(n)
        return r
    }

    mutating func string() throws -> String {
        let s = try sub()
        return String(decoding: UnsafeBufferPointer(rebasing: buf[s.pos..<s.end]), as: UTF8.self)
    }

    mutating func fixed32() throws -> UInt32 {
        guard end - pos >= 4 else { throw VectorTileError("truncated (a 4-byte number past the end)") }
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(buf[pos + k]) << (8 * UInt32(k)) }
        pos += 4
        return v
    }

    mutating func fixed64() throws -> UInt64 {
        guard end - pos >= 8 else { throw VectorTileError("truncated (an 8-byte number past the end)") }
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(buf[pos + k]) << (8 * UInt64(k)) }
        pos += 8
        return v
    }

    mutating func skip(_ wire: Int) throws {
        switch wire {
        case 0: _ = try varint()
        case 1: _ = try fixed64()
        case 2: _ = try sub()
        case 5: _ = try fixed32()
        default: throw VectorTileError("unknown wire type \(wire)")
        }
    }
}
