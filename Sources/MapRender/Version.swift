/// The version of maprender, in one place: `maprender --version`, and any text that names the
/// program (a tile request's User-Agent, a file's generator).
public enum MapRenderVersion {
    public static let current = "0.1.0"
    /// `maprender/0.1.0`, for User-Agent headers and generator notes.
    public static var userAgent: String { "maprender/\(current)" }
}
