import Foundation
import MapRenderCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes to standard output and standard error with POSIX `write`, never through FileHandle's
/// legacy `write(_ data:)`, which traps on a write error (a full disk, `/dev/full`, a closed stream).
///
/// - Standard output: every error is thrown (`.stream`, exit 74), one line naming the cause.
///   A pipe whose reader has gone raises SIGPIPE first, and the process ends with 141, as
///   other command-line tools do in `maprender inspect x.csv | head`.
/// - Standard error: errors are ignored; there is nowhere left to report them.
public enum StandardStreams {
    public static func writeOutput(_ data: Data) throws {
        if let errorNumber = write(data, to: STDOUT_FILENO) {
            throw MapRenderError(.stream, "cannot write standard output: \(String(cString: strerror(errorNumber)))")
        }
    }

    public static func writeOutput(_ text: String) throws { try writeOutput(Data(text.utf8)) }

    public static func writeError(_ text: String) { _ = write(Data(text.utf8), to: STDERR_FILENO) }

    /// Makes sure descriptors 0, 1 and 2 are open: a closed one (`>&-`) gets `/dev/null` opened
    /// read-only, so that no file the process opens later takes its number (and receives what
    /// was meant for the stream), and writes to it fail with EBADF instead.
    public static func reserveClosedStreams() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            let null = open("/dev/null", O_RDONLY)
            guard null >= 0 else { continue }
            if null != fd { dup2(null, fd); close(null) }
        }
    }

    /// Writes all of `data`; the errno of a failed write, nil when all went out.
    private static func write(_ data: Data, to fd: Int32) -> Int32? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int32? in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
    }
}
