import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes from a file, standard input or memory, read in chunks with plain `read(2)`.
///
/// Bytes peeked at (to sniff the format) are handed out again by the next reads.
final class ByteSource {
    /// The name for messages and the report: the path as given, `-` for standard input.
    let name: String
    private var fd: Int32 = -1
    private var ownsDescriptor = false
    private var data: Data?
    private var dataOffset = 0
    private var pending: [UInt8] = []
    private var pendingOffset = 0

    /// Opens a file, or standard input for `-`.
    init(path: String) throws {
        name = path
        if path == "-" {
            fd = 0
            return
        }
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { throw Self.unreadable(path, errno) }
        var info = stat()
        if fstat(opened, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(opened)
            throw Self.unreadable(path, EISDIR)
        }
        fd = opened
        ownsDescriptor = true
    }

    init(data: Data, name: String) {
        self.name = name
        self.data = data
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// The name as it starts an error message.
    var displayName: String { Self.displayName(name) }

    static func displayName(_ name: String) -> String { name == "-" ? "<stdin>" : name }

    /// Reads up to `capacity` bytes; 0 means end of input.
    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
        if pendingOffset < pending.count {
            let n = min(capacity, pending.count - pendingOffset)
            pending.withUnsafeBufferPointer { src in
                buffer.update(from: src.baseAddress! + pendingOffset, count: n)
            }
            pendingOffset += n
            if pendingOffset == pending.count {
                pending = []
                pendingOffset = 0
            }
            return n
        }
        if let data {
            let n = min(capacity, data.count - dataOffset)
            if n <= 0 { return 0 }
            let start = data.startIndex + dataOffset
            data.copyBytes(to: buffer, from: start..<(start + n))
            dataOffset += n
            return n
        }
        while true {
            let n = systemRead(fd, buffer, capacity)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw Self.unreadable(name, errno)
        }
    }

    /// The bytes not read yet, when known: for memory and regular files (nil for a pipe or a
    /// terminal). Readers size their columns from it.
    var bytesLeft: Int? {
        let held = pending.count - pendingOffset
        if let data { return held + data.count - dataOffset }
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let at = lseek(fd, 0, SEEK_CUR)
        return at >= 0 ? held + Swift.max(0, Int(info.st_size) - Int(at)) : nil
    }

    /// Up to `count` bytes from the start, without consuming them.
    func peek(_ count: Int) throws -> [UInt8] {
        var head = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = try head.withUnsafeMutableBufferPointer { buf in
                try read(into: buf.baseAddress! + filled, capacity: count - filled)
            }
            if n == 0 { break }
            filled += n
        }
        head.removeSubrange(filled...)
        let rest = Array(pending[pendingOffset...])
        pending = head + rest
        pendingOffset = 0
        return head
    }

    /// Everything that is left (GeoJSON is parsed from one byte array); past `limit` bytes,
    /// the error `tooLarge(bytes read)`.
    func readAll(limit: Int = .max, tooLarge: (Int) -> Error = { _ in MapRenderError(.internal, "input too large") }) throws -> [UInt8] {
        var out: [UInt8] = []
        if let data {
            out.reserveCapacity(pending.count - pendingOffset + data.count - dataOffset)
        } else if fd >= 0 {
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                out.reserveCapacity(min(Int(info.st_size), limit) + 1)
            }
        }
        let chunk = 1 << 20
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        defer { buffer.deallocate() }
        while true {
            let n = try read(into: buffer, capacity: chunk)
            if n == 0 { break }
            if n > limit - out.count { throw tooLarge(out.count + n) }
            out.append(contentsOf: UnsafeBufferPointer(start: buffer, count: n))
        }
        return out
    }

    /// A regular file mapped read-only; unmapped when released.
    final class MappedFile {
        let base: UnsafePointer<UInt8>
        let count: Int
        private var given = 0   // page-aligned offset before which pages were given back

        fileprivate init(base: UnsafePointer<UInt8>, count: Int) {
            self.base = base
            self.count = count
        }

        deinit { munmap(UnsafeMutableRawPointer(mutating: base), count) }

        /// The bytes before `offset` will not be read again: their pages leave memory (a later
        /// read, e.g. to locate an error, maps them in again from the file).
        func release(before offset: Int) {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let end = min(offset, count) / page * page
            guard end > given else { return }
            madvise(UnsafeMutableRawPointer(mutating: base + given), end - given, MADV_DONTNEED)
            given = end
        }
    }

    /// The whole file mapped into memory, when this source is a non-empty regular file of which
    /// nothing but a peek has been read; nil otherwise (read it with `readAll`).
    func mapWhole() -> MappedFile? {
        guard data == nil, ownsDescriptor, fd >= 0, pendingOffset == 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0,
              lseek(fd, 0, SEEK_CUR) == off_t(pending.count) else { return nil }
        let size = Int(info.st_size)
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else { return nil }
        madvise(p, size, MADV_SEQUENTIAL)
        return MappedFile(base: p.assumingMemoryBound(to: UInt8.self), count: size)
    }

    private func systemRead(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.read(fd, buffer, count)
        #else
        return Darwin.read(fd, buffer, count)
        #endif
    }

    static func unreadable(_ name: String, _ code: Int32) -> MapRenderError {
        MapRenderError(.inputUnreadable, "cannot read \(name): \(String(cString: strerror(code)))")
    }
}
