import CBuildInfo

/// The version of maprender, in one place: `maprender --version`, and any text that names the
/// program (a tile request's User-Agent, a file's generator).
public enum MapRenderVersion {
    public static let current = "0.1.0"
    /// `maprender/0.1.0`, for User-Agent headers and generator notes.
    public static var userAgent: String { "maprender/\(current)" }
    /// The git commit the binary was built from (`0123456789ab`, `+dirty` when the checkout had
    /// changes), as scripts/stamp-commit recorded it; nil when unknown (built without the script,
    /// or from a copy without git).
    public static let commit: String? = {
        let c = String(cString: mr_build_commit())
        return c.isEmpty ? nil : c
    }()
    /// What `maprender --version` prints: `0.1.0 (commit 0123456789ab)` or `0.1.0 (unknown commit)`.
    public static var long: String { "\(current) (\(commit.map { "commit \($0)" } ?? "unknown commit"))" }
}
