import CImageCodec
import Foundation
import MapRenderCore

/// Reads byte ranges of a file or URL.
protocol RangeReader: Sendable {
    var name: String { get }
    /// The length of the whole file, when known (a local file); every range is checked against it.
    var size: UInt64? { get }
    /// Exactly `length` bytes from `offset` (fewer only at the end of the data).
    func read(offset: UInt64, length: UInt64) throws -> Data
    /// One attempt at the bytes, saying whether they came from a cache (HTTP); may throw `TileRetry`.
    func read(offset: UInt64, length: UInt64, attempt: Int) throws -> RangeRead
}

/// Bytes read from a range, and whether a cache gave them (no server was asked, or it said 304).
struct RangeRead {
    var data: Data
    var fromCache: Bool
}

extension RangeReader {
    var size: UInt64? { nil }

    func read(offset: UInt64, length: UInt64, attempt: Int) throws -> RangeRead {
        RangeRead(data: try read(offset: offset, length: length), fromCache: false)
    }
}

/// A local file read with `pread`: many threads at once, no shared file position.
final class FileRangeReader: RangeReader, @unchecked Sendable {
    let name: String
    let size: UInt64?
    private let fd: Int32
    init(path: String) throws {
        name = path
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)  // a FIFO named .pmtiles must not block the open
        guard fd >= 0 else { throw MapRenderError(.inputUnreadable, "--tiles: cannot open \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw MapRenderError(.inputUnreadable, "--tiles: \(path) is not a regular file")
        }
        size = UInt64(st.st_size)
    }
    deinit { close(fd) }
    /// Never more than the file holds from `offset`: a range past the end reads short (or empty),
    /// and no buffer is allocated for bytes that are not there.
    func read(offset: UInt64, length: UInt64) throws -> Data {
        let available = offset < size! ? size! - offset : 0
        let n = Int(min(length, available))
        guard n > 0 else { return Data() }
        var d = Data(count: n)
        let got = d.withUnsafeMutableBytes { pread(fd, $0.baseAddress, n, off_t(offset)) }
        guard got >= 0 else { throw MapRenderError(.inputUnreadable, "\(name): read failed: \(String(cString: strerror(errno)))") }
        d.count = got
        return d
    }
}

/// PMTiles v3 (github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md): a 127-byte header, a root
/// directory and leaf directories of varint-coded entries keyed by Hilbert tile ids, with run
/// lengths, optionally gzip-compressed; tile data addressed by offset and length.
final class PMTilesSource: TileSource, @unchecked Sendable {
    struct Header: Equatable {
        var rootOffset: UInt64, rootLength: UInt64
        var metadataOffset: UInt64, metadataLength: UInt64
        var leafOffset: UInt64, leafLength: UInt64
        var dataOffset: UInt64, dataLength: UInt64
        var internalCompression: UInt8, tileCompression: UInt8, tileType: UInt8
        var minZoom: Int, maxZoom: Int
        var bounds: GeoBounds
    }
    struct Entry: Equatable {
        var tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32
    }

    let name: String
    let header: Header
    private let reader: RangeReader
    private let root: [Entry]
    private(set) var attribution: String?
    private var leaves: [UInt64: [Entry]] = [:]
    /// Leaves being read and inflated now, by offset: other threads wait for that one load.
    private var loading: [UInt64: DispatchGroup] = [:]
    /// Leaf directories read and inflated (tests check each is loaded once).
    private(set) var leafLoads = 0
    private let lock = NSLock()
    var minZoom: Int { header.minZoom }
    var maxZoom: Int { header.maxZoom }
    var hasRetina: Bool { false }

    /// The most a directory may hold, compressed or inflated (16 MiB). The spec keeps the root
    /// directory within the first 16 KiB and writers cut leaves at a few thousand entries (tens of
    /// KiB), so this refuses only hostile files, before any buffer of the claimed size exists.
    static let directoryLimit: UInt64 = 16 << 20
    /// The most one tile may hold (32 MiB): raster tiles are tens of KiB.
    static let tileLimit: UInt64 = 32 << 20
    /// Zooms a tileset may claim: a tile id of zoom 31 or more does not fit the 64-bit id space
    /// with room to spare, and no raster tileset goes past 30.
    static let zoomRange = 0...30

    /// - Parameter vector: the file must hold vector tiles (MVT, gzip or not) for a
    ///   `--basemap-style` source, instead of PNG, JPEG or WebP.
    init(reader: RangeReader, vector: Bool = false) throws {
        self.reader = reader
        name = reader.name
        let head = try reader.read(offset: 0, length: 16384)
        header = try Self.parseHeader(head, name: name)
        try Self.validate(header, fileSize: reader.size, name: name)
        if vector {
            guard header.tileType == 1 else {
                throw MapRenderError(.inputMalformed, "--tiles: \(name) holds raster tiles (type \(header.tileType)); a vector source needs MVT tiles")
            }
            guard header.tileCompression <= 2 else {
                throw MapRenderError(.inputMalformed, "--tiles: \(name): vector tiles compressed with \(header.tileCompression) are not supported (none or gzip)")
            }
        } else {
        guard [2, 3, 4].contains(header.tileType) else {
            let kind = [0: "unknown", 1: "vector (MVT)", 5: "AVIF"][Int(header.tileType)] ?? "type \(header.tileType)"
            throw MapRenderError(.inputMalformed, "--tiles: \(name) holds \(kind) tiles; maprender draws PNG, JPEG and WebP")
        }
        guard header.tileCompression <= 1 else {
            throw MapRenderError(.inputMalformed, "--tiles: \(name): compressed raster tiles (compression \(header.tileCompression)) are not supported")
        }
        }
        let rootBytes: Data
        // `validate` checked offset + length does not overflow and stays below 2^63.
        let rootEnd = header.rootOffset + header.rootLength
        if rootEnd <= UInt64(head.count) {
            rootBytes = head.subdata(in: head.startIndex + Int(header.rootOffset)..<head.startIndex + Int(rootEnd))
        } else {
            rootBytes = try reader.read(offset: header.rootOffset, length: header.rootLength)
        }
        guard UInt64(rootBytes.count) == header.rootLength else {
            throw MapRenderError(.inputMalformed, "--tiles: \(name): the root directory is truncated (\(rootBytes.count) of \(header.rootLength) bytes)")
        }
        root = try Self.parseDirectory(Self.decompress(rootBytes, header.internalCompression, name: name), name: name)
        if header.metadataLength > 0 && header.metadataLength < 1 << 24,
           let m = try? Self.decompress(reader.read(offset: header.metadataOffset, length: header.metadataLength),
                                        header.internalCompression, name: name),
           let json = try? JSONSerialization.jsonObject(with: m) as? [String: Any],
           let a = json["attribution"] as? String, !a.isEmpty {
            attribution = a
        }
    }

    /// The tile's bytes; `fromCache` when the tile's own bytes came from the HTTP disk cache
    /// (directories are not counted: they are not tiles).
    func fetch(_ t: TileID, retina: Bool, attempt: Int) -> TileFetch {
        guard Self.zoomRange.contains(t.z), t.x >= 0, t.y >= 0, t.x < 1 << t.z, t.y < 1 << t.z else { return .missing }
        guard TileBounds.intersects(t, header.bounds) else { return .missing }
        let id = Self.tileID(t)
        do {
            var dir = root
            for _ in 0..<4 {  // the spec allows at most 3 levels of leaves
                guard let e = Self.find(id, in: dir) else { return .missing }
                if e.runLength > 0 {
                    guard e.length > 0 else { return .missing }
                    let start = try Self.locate(e, in: "tile data", offset: header.dataOffset, length: header.dataLength,
                                                limit: Self.tileLimit, name: name)
                    let r = try reader.read(offset: start, length: UInt64(e.length), attempt: attempt)
                    guard r.data.count == Int(e.length) else {
                        return .failed("\(name): tile \(t): truncated (\(r.data.count) of \(e.length) bytes)")
                    }
                    return .data(r.data, fromCache: r.fromCache)
                }
                let start = try Self.locate(e, in: "leaf directories", offset: header.leafOffset, length: header.leafLength,
                                            limit: Self.directoryLimit, name: name)
                dir = try leaf(offset: start, length: UInt64(e.length), attempt: attempt)
            }
            return .failed("\(name): directories nested too deep")
        } catch let r as TileRetry {
            return .retry(after: r.after, attempt: r.attempt)
        } catch let e as MapRenderError {
            return .failed("\(name): tile \(t): \(e.message.replacingOccurrences(of: "--tiles: \(name): ", with: ""))")
        } catch {
            return .failed("\(name): tile \(t): \(error)")
        }
    }

    /// Where entry `e` starts in the file: its range must lie inside the section (`offset`,
    /// `length`) the header gives, and be at most `limit` bytes.
    static func locate(_ e: Entry, in section: String, offset: UInt64, length: UInt64, limit: UInt64, name: String) throws -> UInt64 {
        let (end, overflow) = e.offset.addingReportingOverflow(UInt64(e.length))
        guard !overflow, end <= length else {
            throw MapRenderError(.inputMalformed, "--tiles: \(name): a directory entry (offset \(e.offset), length \(e.length)) lies outside the \(section) (\(length) bytes)")
        }
        guard UInt64(e.length) <= limit else {
            throw MapRenderError(.inputMalformed, "--tiles: \(name): a directory entry's length \(e.length) is more than the \(limit >> 20) MiB limit of \(section)")
        }
        return offset + e.offset  // the section's own end was checked against 2^63 at open
    }

    /// The leaf directory at `offset`, read and inflated once however many threads ask for it
    /// at the same time (16 threads inflating one gzip-bomb leaf took 14 GB). A thread that waited
    /// for a load that failed (a retry, an error) tries itself.
    private func leaf(offset: UInt64, length: UInt64, attempt: Int) throws -> [Entry] {
        lock.lock()
        if let l = leaves[offset] { lock.unlock(); return l }
        if let other = loading[offset] {
            lock.unlock()
            other.wait()
            lock.lock()
            if let l = leaves[offset] { lock.unlock(); return l }
        }
        let mine = DispatchGroup()
        mine.enter()
        loading[offset] = mine
        leafLoads += 1
        lock.unlock()
        defer {
            lock.lock()
            if loading[offset] === mine { loading[offset] = nil }
            lock.unlock()
            mine.leave()
        }
        let bytes = try reader.read(offset: offset, length: length, attempt: attempt).data
        guard UInt64(bytes.count) == length else {
            throw MapRenderError(.inputMalformed, "--tiles: \(name): a leaf directory is truncated (\(bytes.count) of \(length) bytes)")
        }
        let d = try Self.parseDirectory(Self.decompress(bytes, header.internalCompression, name: name), name: name)
        lock.lock(); leaves[offset] = d; lock.unlock()
        return d
    }

    static func parseHeader(_ d: Data, name: String) throws -> Header {
        guard d.count >= 127, d.prefix(7).elementsEqual("PMTiles".utf8) else {
            throw MapRenderError(.inputMalformed, "--tiles: \(name) is not a PMTiles file")
        }
        let version = d[d.startIndex + 7]
        guard version == 3 else {
            throw MapRenderError(.inputMalformed, "--tiles: \(name) is PMTiles version \(version); maprender reads version 3")
        }
        let b = [UInt8](d.prefix(127))
        func u64(_ i: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[i + $1]) << (8 * UInt64($1)) } }
        func i32(_ i: Int) -> Double { Double(Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[i + $1]) << (8 * UInt32($1)) })) / 1e7 }
        return Header(rootOffset: u64(8), rootLength: u64(16), metadataOffset: u64(24), metadataLength: u64(32),
                      leafOffset: u64(40), leafLength: u64(48), dataOffset: u64(56), dataLength: u64(64),
                      internalCompression: b[97], tileCompression: b[98], tileType: b[99],
                      minZoom: Int(b[100]), maxZoom: Int(b[101]),
                      bounds: GeoBounds(west: i32(102), south: i32(106), east: i32(110), north: i32(114)))
    }

    /// Every section of the header inside the file (when its size is known) and below 2^63, with
    /// no offset + length that overflows; the root directory within the directory limit; zooms in 0...30.
    static func validate(_ h: Header, fileSize: UInt64?, name: String) throws {
        func fail(_ why: String) -> MapRenderError { MapRenderError(.inputMalformed, "--tiles: \(name): \(why)") }
        let sections: [(String, UInt64, UInt64)] = [
            ("root directory", h.rootOffset, h.rootLength), ("metadata", h.metadataOffset, h.metadataLength),
            ("leaf directories", h.leafOffset, h.leafLength), ("tile data", h.dataOffset, h.dataLength),
        ]
        for (field, offset, length) in sections {
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, end <= UInt64(Int64.max) else {
                throw fail("the header's \(field) offset \(offset) + length \(length) is out of range")
            }
            if let size = fileSize, end > size {
                throw fail("the header's \(field) (offset \(offset), length \(length)) runs past the end of the file (\(size) bytes)")
            }
        }
        guard h.rootLength > 0, h.rootLength <= directoryLimit else {
            throw fail("the header's root directory length \(h.rootLength) is not in 1...\(directoryLimit) (16 MiB)")
        }
        guard zoomRange.contains(h.minZoom), zoomRange.contains(h.maxZoom), h.minZoom <= h.maxZoom else {
            throw fail("the header's zooms \(h.minZoom)...\(h.maxZoom) are not within 0...30")
        }
    }

    static func decompress(_ d: Data, _ compression: UInt8, name: String) throws -> Data {
        switch compression {
        case 0, 1: return d
        case 2:
            var out: UnsafeMutablePointer<UInt8>?
            var n = 0
            let rc = d.withUnsafeBytes {
                mr_gunzip($0.bindMemory(to: UInt8.self).baseAddress, d.count, Int(directoryLimit), &out, &n)
            }
            if rc == 2 {
                throw MapRenderError(.inputMalformed, "--tiles: \(name): a gzip directory inflates to more than \(directoryLimit >> 20) MiB")
            }
            guard rc == 0, let out else { throw MapRenderError(.inputMalformed, "--tiles: \(name): a gzip directory is corrupt") }
            defer { mr_image_free(out) }
            return Data(bytes: out, count: n)
        default:
            throw MapRenderError(.inputMalformed, "--tiles: \(name): directory compression \(compression) (brotli or zstd) is not supported; write it with gzip")
        }
    }

    /// Entries: count, then delta-coded tile ids, run lengths, lengths, offsets (0 = right after the previous).
    static func parseDirectory(_ d: Data, name: String) throws -> [Entry] {
        let b = [UInt8](d)
        var i = 0
        func varint() throws -> UInt64 {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard i < b.count, shift < 64 else { throw MapRenderError(.inputMalformed, "--tiles: \(name): a directory is truncated") }
                let byte = b[i]; i += 1
                v |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return v }
                shift += 7
            }
        }
        func corrupt(_ why: String) -> MapRenderError { MapRenderError(.inputMalformed, "--tiles: \(name): a directory is corrupt: \(why)") }
        let count = try varint()
        // Each entry takes at least four bytes (four varints).
        guard count <= UInt64(b.count / 4) else { throw corrupt("it claims \(count) entries in \(b.count) bytes") }
        let n = Int(count)
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
        var last: UInt64 = 0
        for k in 0..<n {
            let delta = try varint()
            guard k == 0 || delta > 0 else { throw corrupt("tile ids not in increasing order") }
            let (id, overflow) = last.addingReportingOverflow(delta)
            guard !overflow else { throw corrupt("a tile id past 2^64") }
            last = id
            entries[k].tileID = id
        }
        for k in 0..<n {
            let v = try varint()
            guard v <= UInt64(UInt32.max) else { throw corrupt("a run length of \(v)") }
            entries[k].runLength = UInt32(v)
        }
        for k in 0..<n {
            let v = try varint()
            guard v <= UInt64(UInt32.max) else { throw corrupt("a length of \(v)") }
            entries[k].length = UInt32(v)
        }
        for k in 0..<n {
            let v = try varint()
            if v == 0 {
                // 0: right after the previous entry; the first entry has nothing before it.
                guard k > 0 else { throw corrupt("the first entry has offset 0 (\"after the previous one\")") }
                let (o, overflow) = entries[k - 1].offset.addingReportingOverflow(UInt64(entries[k - 1].length))
                guard !overflow else { throw corrupt("an offset past 2^64") }
                entries[k].offset = o
            } else {
                entries[k].offset = v - 1
            }
        }
        return entries
    }

    /// The entry holding `id`: the last with tileID ≤ id, if its run reaches id (or it is a leaf pointer).
    static func find(_ id: UInt64, in dir: [Entry]) -> Entry? {
        var lo = 0, hi = dir.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if dir[mid].tileID == id { return dir[mid] }
            if dir[mid].tileID < id { lo = mid + 1 } else { hi = mid - 1 }
        }
        guard hi >= 0 else { return nil }
        let e = dir[hi]
        if e.runLength == 0 { return e }
        return id - e.tileID < UInt64(e.runLength) ? e : nil
    }

    /// The PMTiles tile id: tiles of all lower zooms first, then the position on the Hilbert curve.
    /// For zooms in `zoomRange` (`fetch` checks; past zoom 31 the id would not fit in 64 bits).
    static func tileID(_ t: TileID) -> UInt64 {
        let z = UInt64(t.z)
        let acc: UInt64 = ((1 << (2 * z)) - 1) / 3
        let n = UInt64(1) << z
        var x = UInt64(t.x), y = UInt64(t.y), d: UInt64 = 0
        var s = n / 2
        while s > 0 {
            let rx: UInt64 = (x & s) > 0 ? 1 : 0
            let ry: UInt64 = (y & s) > 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 { x = n - 1 - x; y = n - 1 - y }
                swap(&x, &y)
            }
            s /= 2
        }
        return acc + d
    }
}
