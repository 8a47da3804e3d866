import Foundation
import MapRenderCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes a batch's files inside its root even while someone swaps a folder for a symbolic link
/// during the run (a check of the paths before the run does not hold then: 146 of 200 maps of a
/// hostile run went outside the root).
///
/// The output's folder is reached from a descriptor of the root, one component at a time, with
/// `openat(O_NOFOLLOW | O_DIRECTORY)` (missing folders made with `mkdirat`), and the file is
/// written as a temporary beside its name and renamed over it with `renameat` on that folder's
/// descriptor. A link put in place of any folder fails the walk; a link put in place of the file
/// itself is replaced, never followed. (`openat2` with `RESOLVE_BENEATH` would do the walk in
/// one call, but Debian 12's glibc has no wrapper for it; the walk is a few calls per map.)
enum ConfinedWrite {
    /// Writes `data` to `path`, which must lie under `root` (a canonical folder path).
    static func write(_ data: Data, to path: String, root: String) throws {
        // The path as the pre-run check saw it: links resolved, which then must stay put.
        let target = OutputSafety.Identity.canonical(AtomicFile.resolveSymlinks(path))
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard target.hasPrefix(prefix) else {
            throw MapRenderError(.output, MessageText.escaped("cannot write \(path): it leads outside \(root) (a symbolic link changed during the run?)"))
        }
        try write(data, beneath: root, parts: target.dropFirst(prefix.count).split(separator: "/").map(String.init), shownAs: path)
    }

    /// Writes `data` to `root/parts…`, each folder of `parts` reached without following a link.
    static func write(_ data: Data, beneath root: String, parts: [String], shownAs path: String) throws {
        guard let name = parts.last, !parts.contains(".."), !parts.contains(".") else {
            throw MapRenderError(.output, "cannot write \(path): not a file name inside \(root)")
        }
        var fd = open(root, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_RDONLY)
        guard fd >= 0 else { throw failure(path, root) }
        defer { close(fd) }
        var walked = root
        for part in parts.dropLast() {
            walked += "/" + part
            var next = openat(fd, part, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_RDONLY)
            if next < 0 && errno == ENOENT {
                if mkdirat(fd, part, 0o777) != 0 && errno != EEXIST { throw failure(path, walked) }
                next = openat(fd, part, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_RDONLY)
            }
            if next < 0 {
                if errno == ELOOP || errno == ENOTDIR {
                    throw MapRenderError(.output, MessageText.escaped(
                        "cannot write \(path): \(walked) is a file or a symbolic link, not a folder (outputs stay inside \(root))"))
                }
                throw failure(path, walked)
            }
            close(fd)
            fd = next
        }
        // Keep the mode of a file replaced.
        var st = stat()
        let mode: mode_t = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == S_IFREG
            ? st.st_mode & 0o7777 : 0o666
        let tmp = "." + name + AtomicFile.temporaryMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let file = openat(fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard file >= 0 else { throw failure(path, walked) }
        do {
            if mode != 0o666 { _ = fchmod(file, mode) }
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(file, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw failure(path, path)
                    }
                    offset += n
                }
            }
        } catch {
            close(file)
            unlinkat(fd, tmp, 0)
            throw error
        }
        close(file)
        guard renameat(fd, tmp, fd, name) == 0 else {
            let e = failure(path, path)
            unlinkat(fd, tmp, 0)
            throw e
        }
    }

    private static func failure(_ path: String, _ at: String) -> MapRenderError {
        let reason = String(cString: strerror(errno))
        return MapRenderError(.output, MessageText.escaped(at == path ? "cannot write \(path): \(reason)" : "cannot write \(path): \(at): \(reason)"))
    }
}
