import Foundation

/// How a long run shows its progress on standard error.
public enum ProgressMode: Sendable {
    /// A bar when standard error is a terminal, else lines.
    case automatic
    case bar
    case lines
    /// Only what must be said (failures).
    case quiet

    /// `.automatic` resolved against standard error.
    var resolved: ProgressMode { self == .automatic ? (isatty(2) == 1 ? .bar : .lines) : self }
}

/// Text shared by the batch and animation progress printers.
enum ProgressText {
    /// `[#########---------------------]`, redrawn in place with `\r` and an erase-line escape.
    static func bar(done: Int, total: Int, width: Int = 30) -> String {
        let filled = total == 0 ? width : width * min(done, total) / total
        return "\r\u{1B}[2K[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    /// `0.4 s`, `12 s`, `3:05`, `1:02:09`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return String(format: "%d:%02d", s / 60, s % 60) }
        return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }
}
