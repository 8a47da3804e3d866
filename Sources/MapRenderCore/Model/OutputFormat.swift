/// The image format written.
public enum OutputFormat: String, Sendable, CaseIterable, Codable {
    case png, svg, pdf

    /// The format named by a file extension (`map.PNG` → .png), or nil.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), path[dot...].count > 1 else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }
}
