import Foundation
import MapRenderCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes output files so that a failed or killed run never leaves a partial file and never
/// replaces a good one, and never changes what it replaces beyond its bytes.
///
/// ```swift
/// try AtomicFile.write(pngData, to: "out/map.png")
/// ```
/// - A regular file (or a new one) is replaced atomically: the bytes go to an unnamed file in the
///   same folder (Linux `O_TMPFILE`), which gets a name only once complete (`linkat`) and is then
///   renamed over the target. Where `O_TMPFILE` is not supported, a named temporary file
///   `.NAME.maprender-tmp-PID-RANDOM` is used instead; a later write to the same output removes
///   such files left by a process that no longer runs (a killed run).
/// - A symbolic link is followed: its target is replaced, the link stays.
/// - An existing file keeps its permission bits (and, where allowed, its owner).
/// - A device, pipe or socket (`/dev/null`, `/dev/stdout`, a FIFO) is written directly, never replaced.
/// - `-` writes to standard output.
public enum AtomicFile {
    /// The marker in the names of named temporary files; `staleTemporaries` looks for it.
    static let temporaryMarker = ".maprender-tmp-"

    public static func write(_ data: Data, to path: String) throws {
        try stage(data, to: path).commit()
    }

    /// A file written in full beside its target but not yet in its place: `commit` renames it
    /// over the target, `discard` removes it. So that two outputs of one run (a map and its
    /// summary) are both complete before either replaces anything: a failure before the commit
    /// leaves the target as it was.
    ///
    /// Standard output and devices, which cannot be replaced, are written at the commit.
    public struct Staged {
        enum Pending {
            case renamed(temporary: String, target: String)
            case direct(Data, target: String)
            case standardOutput(Data)
        }
        let pending: Pending
        let shownAs: String

        public func commit() throws {
            switch pending {
            case .renamed(let tmp, let target): _ = try AtomicFile.rename(tmp, over: target, shownAs: shownAs)
            case .direct(let data, let target): try AtomicFile.writeInPlace(data, to: target, shownAs: shownAs)
            case .standardOutput(let data): try StandardStreams.writeOutput(data)
            }
        }

        public func discard() {
            if case .renamed(let tmp, _) = pending { unlink(tmp) }
        }
    }

    /// Removes `path` when it is a regular file (through a symbolic link, its target), so that an
    /// earlier run's record of a set is gone while a new set is written; anything else is left.
    public static func removeRegularFile(_ path: String) {
        let target = resolveSymlinks(path)
        var st = stat()
        if lstat(target, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { unlink(target) }
    }

    /// Writes `data` to a temporary file beside `path` (see `Staged`).
    public static func stage(_ data: Data, to path: String) throws -> Staged {
        if path == "-" { return Staged(pending: .standardOutput(data), shownAs: path) }
        let target = resolveSymlinks(path)
        var st = stat()
        let exists = stat(target, &st) == 0
        if exists && (st.st_mode & S_IFMT) == S_IFDIR {
            throw MapRenderError(.output, "cannot write \(path): it is a folder")
        }
        if exists && (st.st_mode & S_IFMT) != S_IFREG {
            return Staged(pending: .direct(data, target: target), shownAs: path)
        }
        let url = URL(fileURLWithPath: target)
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw MapRenderError(.output, "cannot write \(path): folder \(dir) does not exist")
        }
        removeStaleTemporaries(for: target)
        let mode: mode_t = exists ? st.st_mode & 0o7777 : 0o666
        let owner = exists ? (uid: st.st_uid, gid: st.st_gid) : nil
        #if os(Linux)
        if let tmp = try writeUnnamed(data, to: target, folder: dir, mode: mode, owner: owner, shownAs: path) {
            return Staged(pending: .renamed(temporary: tmp, target: target), shownAs: path)
        }
        #endif
        let tmp = try writeNamed(data, to: target, mode: mode, owner: owner, shownAs: path)
        return Staged(pending: .renamed(temporary: tmp, target: target), shownAs: path)
    }

    // MARK: - Ways of writing

    /// A device, pipe or socket: opened for writing (no create) and written as is.
    fileprivate static func writeInPlace(_ data: Data, to target: String, shownAs path: String) throws {
        let fd = open(target, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path) }
        defer { close(fd) }
        try writeAll(data, to: fd, shownAs: path)
    }

    #if os(Linux)
    /// O_TMPFILE | O_DIRECTORY, not imported from the C macro.
    private static let oTmpfile: Int32 = 0o20_000_000 | O_DIRECTORY

    /// Writes through an unnamed file, named (temporarily) only once complete; nil when the
    /// filesystem does not support it.
    private static func writeUnnamed(_ data: Data, to target: String, folder: String, mode: mode_t,
                                     owner: (uid: uid_t, gid: gid_t)?, shownAs path: String) throws -> String? {
        let fd = open(folder, oTmpfile | O_WRONLY | O_CLOEXEC, mode)
        if fd < 0 {
            if [EOPNOTSUPP, EISDIR, EINVAL, ENOENT].contains(errno) { return nil }
            throw failure(path)
        }
        defer { close(fd) }
        try prepare(fd, mode: mode, owner: owner, shownAs: path)
        try writeAll(data, to: fd, shownAs: path)
        // The file gets a (temporary) name only now, complete; rename then replaces the target atomically.
        let tmp = temporaryName(for: target)
        guard linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0 else {
            if [ENOENT, EXDEV, EPERM, EOPNOTSUPP].contains(errno) { return nil } // no /proc: named file instead
            throw failure(path)
        }
        return tmp
    }
    #endif

    /// Writes a named temporary file beside the target (renamed over it at the commit).
    private static func writeNamed(_ data: Data, to target: String, mode: mode_t,
                                   owner: (uid: uid_t, gid: gid_t)?, shownAs path: String) throws -> String {
        let tmp = temporaryName(for: target)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure(path) }
        do {
            try prepare(fd, mode: mode, owner: owner, shownAs: path)
            try writeAll(data, to: fd, shownAs: path)
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        close(fd)
        return tmp
    }

    fileprivate static func rename(_ tmp: String, over target: String, shownAs path: String) throws -> Bool {
        guard Glibc.rename(tmp, target) == 0 else {
            let e = failure(path)
            unlink(tmp)
            throw e
        }
        return true
    }

    /// Gives a new file the mode of the file it replaces (open's mode is reduced by the umask),
    /// and its owner where the process may.
    private static func prepare(_ fd: Int32, mode: mode_t, owner: (uid: uid_t, gid: gid_t)?, shownAs path: String) throws {
        if let o = owner {
            _ = fchown(fd, o.uid, o.gid) // allowed only to root or the owner; keep going otherwise
            guard fchmod(fd, mode) == 0 else { throw failure(path) }
        }
    }

    private static func writeAll(_ data: Data, to fd: Int32, shownAs path: String) throws {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw failure(path)
                }
                offset += n
            }
        }
    }

    private static func failure(_ path: String) -> MapRenderError {
        MapRenderError(.output, "cannot write \(path): \(String(cString: strerror(errno)))")
    }

    // MARK: - Temporary files

    /// `.NAME.maprender-tmp-PID-RANDOM` beside the target.
    static func temporaryName(for target: String) -> String {
        let url = URL(fileURLWithPath: target)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + temporaryMarker
            + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Temporary files of this target left by processes that no longer run: regular files named
    /// `.NAME.maprender-tmp-PID-…` (or `.NAME.tmp-PID-…`, the names of earlier versions) whose PID
    /// is not a running process.
    static func staleTemporaries(for target: String) -> [String] {
        let url = URL(fileURLWithPath: target)
        let dir = url.deletingLastPathComponent().path
        let prefixes = ["." + url.lastPathComponent + temporaryMarker, "." + url.lastPathComponent + ".tmp-"]
        var stale: [String] = []
        for name in entries(of: dir, startingWith: "." + url.lastPathComponent) {
            guard let prefix = prefixes.first(where: { name.hasPrefix($0) }) else { continue }
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0,
                  !rest[rest.index(after: dash)...].isEmpty, rest[rest.index(after: dash)...].allSatisfy(\.isNumber)
            else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue } // still running (or someone else's)
            let full = dir + "/" + name
            var st = stat()
            guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            stale.append(full)
        }
        return stale.sorted()
    }

    /// The names in folder `dir` that start with `prefix`, read with readdir: only those become
    /// Strings. (Every write looks for its stale temporaries: FileManager's listing made a String
    /// of every entry, 18.7 M instructions a map in a folder of 9,000 files, and a batch writing
    /// N maps into one folder did that N times over a folder growing to N files.)
    static func entries(of dir: String, startingWith prefix: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        let want = Array(prefix.utf8)
        var found: [String] = []
        while let e = readdir(d) {
            let matches = withUnsafeBytes(of: &e.pointee.d_name) { raw -> Bool in
                guard raw.count > want.count else { return false }
                for k in 0..<want.count where raw[k] != want[k] { return false }
                return true
            }
            guard matches else { continue }
            let name = withUnsafeBytes(of: &e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            found.append(name)
        }
        return found
    }

    private static func removeStaleTemporaries(for target: String) {
        for p in staleTemporaries(for: target) { unlink(p) }
    }

    // MARK: - Paths

    /// Follows symbolic links (up to 40) to the file they name, which may not exist yet.
    static func resolveSymlinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK,
                  let dest = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = dest.hasPrefix("/") ? dest
                : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(dest).path
        }
        return current
    }
}
