/// Every failure the library reports: a kind (which decides the exit code) and one clear line.
public struct MapRenderError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A bad option value or combination.
        case usage
        /// An input file that does not exist or cannot be read.
        case inputUnreadable
        /// An input file that is malformed (bad JSON, no coordinate columns, ...).
        case inputMalformed
        /// A bad style file.
        case style
        /// The output could not be written.
        case output
        /// Map tiles that could not be had, with `--tiles-strict`.
        case unavailable
        /// Standard output could not be written (full, closed).
        case stream
        /// A bug: something that should not happen.
        case `internal`
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// sysexits.h codes, documented in the README.
    public var exitCode: Int32 {
        switch kind {
        case .usage: return 64        // EX_USAGE
        case .inputMalformed: return 65 // EX_DATAERR
        case .inputUnreadable: return 66 // EX_NOINPUT
        case .unavailable: return 69  // EX_UNAVAILABLE
        case .internal: return 70     // EX_SOFTWARE
        case .output: return 73       // EX_CANTCREAT
        case .stream: return 74       // EX_IOERR
        case .style: return 78        // EX_CONFIG
        }
    }
}
