import Foundation
import MapRenderCore

/// 64-bit FNV-1a: small, stable across runs and machines, and enough to tell "changed" from
/// "unchanged" for `--skip-unchanged` (it is not a defence against someone forging files).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325 // offset basis

    mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var h = value
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3 // FNV prime
        }
        value = h
    }

    mutating func add(_ data: Data) {
        data.withUnsafeBytes { add($0) }
    }

    mutating func add(_ text: String) {
        add(text.utf8)
        add([0])
    }

    var hex: String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// The `--skip-unchanged` record: a hash of a job's options and files, kept beside its output.
enum BatchHash {
    /// Changes whenever what a job hashes changes meaning, so old records never match.
    static let version = "maprender-batch-hash 1"

    /// `.<output name>.maprender-hash` in the output's folder.
    static func recordPath(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".maprender-hash").path
    }

    static func recorded(for output: String) -> String? {
        guard let d = FileManager.default.contents(atPath: recordPath(for: output)),
              let s = String(data: d, encoding: .utf8) else { return nil }
        return s.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func record(_ hash: String, for output: String) throws {
        try AtomicFile.write(Data((hash + "\n").utf8), to: recordPath(for: output))
    }
}

/// Digests of whole files, each computed once per run (many jobs share an input).
final class FileDigests: @unchecked Sendable {
    private let lock = NSLock()
    private var digests: [String: String] = [:]

    func digest(of path: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let d = digests[path] { return d }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw MapRenderError(.inputUnreadable, "cannot read \(path): no such file or not readable")
        }
        var h = FNV1a()
        h.add(data)
        digests[path] = h.hex
        return h.hex
    }

    /// The job's hash: its normalised options and the bytes of its inputs, basemaps, style and
    /// icon files (`--marker-icon`, the style's `marker.icon`).
    func hash(of job: BatchJob) throws -> String {
        var h = FNV1a()
        h.add(BatchHash.version)
        h.add(job.fingerprint)
        let marker = job.request.style.marker
        for (kind, paths) in [("input", job.request.inputs), ("basemap", job.request.basemaps),
                              ("style", job.styleFile.map { [$0] } ?? []), ("icon", marker.iconFiles.map(marker.iconPath))] {
            for p in paths {
                h.add(kind)
                h.add(p)
                h.add(try digest(of: p))
            }
        }
        // Tilesets are too large to read for a hash: their identity (what and where, size and
        // time of change) stands for their contents; an HTTP source by its text (in the fingerprint).
        for source in job.request.tiles.sources {
            h.add("tiles")
            h.add(source)
            h.add(tilesetIdentity(source))
        }
        return h.hex
    }

    /// A local tileset's size and time of change (a folder's: the count, total size and latest
    /// change of the files in it, read once per run); "" for a URL or preset.
    func tilesetIdentity(_ source: String) -> String {
        lock.lock()
        if let d = digests["tiles:" + source] { lock.unlock(); return d }
        lock.unlock()
        var st = stat()
        guard stat(source, &st) == 0 else { return "" }
        var id: String
        if (st.st_mode & S_IFMT) == S_IFDIR {
            var count = 0, bytes = 0, latest = 0.0
            let e = FileManager.default.enumerator(at: URL(fileURLWithPath: source),
                                                   includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey])
            while let url = e?.nextObject() as? URL {
                guard let v = try? url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey]) else { continue }
                count += 1
                bytes += v.fileSize ?? 0
                latest = max(latest, v.contentModificationDate?.timeIntervalSince1970 ?? 0)
            }
            id = "folder \(count) \(bytes) \(latest)"
        } else {
            id = "file \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(st.st_ino)"
        }
        lock.lock()
        digests["tiles:" + source] = id
        lock.unlock()
        return id
    }
}
