import Foundation

/// A small PMTiles v3 writer for hostile files (issue 45): one PNG tile as 0/0/0 and an
/// uncompressed root directory, with any header field or directory bytes replaced.
public enum HostilePMTiles {
    public static func varint(_ v: UInt64) -> [UInt8] {
        var v = v, out: [UInt8] = []
        while v >= 0x80 { out.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
        out.append(UInt8(v))
        return out
    }

    /// Entries as stored: tile id deltas, run lengths, lengths, offsets (stored: 0 = after the previous, else offset + 1).
    public static func directory(_ entries: [(id: UInt64, run: UInt64, length: UInt64, storedOffset: UInt64)]) -> [UInt8] {
        var out = varint(UInt64(entries.count))
        var last: UInt64 = 0
        for e in entries { out += varint(e.id &- last); last = e.id }
        for e in entries { out += varint(e.run) }
        for e in entries { out += varint(e.length) }
        for e in entries { out += varint(e.storedOffset) }
        return out
    }

    public struct Layout {
        public var root: (UInt64, UInt64), metadata: (UInt64, UInt64), leaf: (UInt64, UInt64), data: (UInt64, UInt64)
        public var internalCompression: UInt8 = 1, minZoom: UInt8 = 0, maxZoom: UInt8 = 3
    }

    public static func header(_ l: Layout) -> [UInt8] {
        var h = [UInt8]("PMTiles".utf8) + [3]
        func u64(_ v: UInt64) { for k in 0..<8 { h.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) } }
        func i32(_ v: Int32) { for k in 0..<4 { h.append(UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> (8 * UInt32(k)))) } }
        for (o, n) in [l.root, l.metadata, l.leaf, l.data] { u64(o); u64(n) }
        u64(1); u64(1); u64(1)  // addressed tiles, entries, contents
        h.append(1)  // clustered
        h += [l.internalCompression, 1, 2, l.minZoom, l.maxZoom]  // tile compression none, PNG
        i32(-1_800_000_000); i32(-850_511_287); i32(1_800_000_000); i32(850_511_287)
        h += [UInt8](repeating: 0, count: 9)  // center zoom, lon, lat: to 127 bytes
        precondition(h.count == 127)
        return h
    }

    /// A PMTiles file holding the fixture tile as 0/0/0, with `change` applied to its layout and
    /// `root` (when given) as its root directory bytes.
    public static func file(in dir: URL, root: [UInt8]? = nil, change: (inout Layout) -> Void = { _ in }) throws -> String {
        let tile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.repo.appendingPathComponent("Tests/MapRenderTilesTests/Fixtures/tile-2-1-1.png").path)))
        let rootBytes = root ?? directory([(id: 0, run: 1, length: UInt64(tile.count), storedOffset: 1)])
        let r = UInt64(rootBytes.count)
        var l = Layout(root: (127, r), metadata: (127 + r, 0), leaf: (127 + r, 0), data: (127 + r, UInt64(tile.count)))
        change(&l)
        let path = dir.appendingPathComponent("hostile-\(UUID().uuidString.prefix(8)).pmtiles").path
        try Data(header(l) + rootBytes + tile).write(to: URL(fileURLWithPath: path))
        return path
    }
}
