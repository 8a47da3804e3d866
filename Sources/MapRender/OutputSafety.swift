import Foundation
import MapRenderCore
#if canImport(Glibc)
import Glibc
#endif

/// Checks, before anything is read or rendered, that no output of a run is one of its inputs
/// or another of its outputs: `-o in.csv`, `--summary map.svg` with `-o map.svg`, a batch job
/// writing over the manifest, `compare a.png b.png --diff a.png`.
///
/// ```swift
/// try OutputSafety.check(outputs: [("--output", "map.png"), ("--summary", "map.json")],
///                        inputs: [("input", "cities.csv"), ("--style", "dark.json")])
/// ```
/// Two paths are the same file when they resolve (symbolic links followed, `.`/`..` removed) to
/// the same path, or name the same device and inode (hard links). Devices, pipes and standard
/// output (`-`) are never a clash: `-o /dev/null --summary /dev/null` is fine.
public enum OutputSafety {
    /// A path with the role it plays in the run, as the message names it (`--output`, `input`,
    /// `jobs[2].output`).
    public typealias Named = (role: String, path: String)

    /// - Complexity: O(n) in the number of paths (a stat and a realpath each; hashed look-ups).
    public static func check(outputs: [Named], inputs: [Named]) throws {
        var byPath: [String: (named: Named, isInput: Bool)] = [:]
        var byInode: [[UInt64]: (named: Named, isInput: Bool)] = [:]
        func note(_ named: Named, _ id: Identity, isInput: Bool) {
            if byPath[id.path] == nil { byPath[id.path] = (named, isInput) }
            if let key = id.key, byInode[key] == nil { byInode[key] = (named, isInput) }
        }
        for input in inputs {
            if let id = Identity(input.path) { note(input, id, isInput: true) }
        }
        for output in outputs {
            guard let id = Identity(output.path) else { continue }
            if let other = byPath[id.path] ?? id.key.flatMap({ byInode[$0] }) {
                throw MapRenderError(.usage, "refusing to write \(output.role) \(output.path): "
                    + (other.isInput ? "it is the \(other.named.role) \(other.named.path); choose another output"
                                     : "it is also the \(other.named.role); give each output its own file"))
            }
            note(output, id, isInput: false)
        }
    }

    /// Where a path leads: the resolved path, and device and inode when the file exists.
    struct Identity {
        var path: String
        var device: UInt64?
        var inode: UInt64?

        /// nil for standard output and for files that are not regular files (devices, pipes).
        init?(_ given: String) {
            guard given != "-", !given.isEmpty else { return nil }
            let resolved = AtomicFile.resolveSymlinks(given)
            var st = stat()
            if stat(resolved, &st) == 0 {
                guard (st.st_mode & S_IFMT) == S_IFREG else { return nil }
                device = UInt64(st.st_dev)
                inode = UInt64(st.st_ino)
            }
            path = Self.canonical(resolved)
        }

        /// Device and inode, when the file exists.
        var key: [UInt64]? { device.flatMap { d in inode.map { [d, $0] } } }

        /// Absolute, with the folder's symbolic links resolved (realpath of the deepest folder that exists).
        static func canonical(_ path: String) -> String {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var folder = url.deletingLastPathComponent()
            var rest = [url.lastPathComponent]
            while true {
                if let real = realpath(folder.path, nil) {
                    defer { free(real) }
                    var base = URL(fileURLWithPath: String(cString: real), isDirectory: true)
                    for c in rest.reversed() { base.appendPathComponent(c) }
                    return base.path
                }
                if folder.path == "/" { return url.path }
                rest.append(folder.lastPathComponent)
                folder = folder.deletingLastPathComponent()
            }
        }
    }
}
