/// The image format written.
public enum OutputFormat: String, Sendable, CaseIterable, Codable {
    case png, svg, pdf, jpeg, webp

    /// The format named by a file extension (`map.PNG` → .png, `map.jpg` → .jpeg), or nil.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), path[dot...].count > 1 else { return nil }
        let ext = path[path.index(after: dot)...].lowercased()
        self.init(rawValue: ext == "jpg" ? "jpeg" : ext)
    }

    /// Pixels (PNG, JPEG, WebP) rather than vectors (SVG, PDF).
    public var isRaster: Bool { self != .svg && self != .pdf }

    /// The quality used when none is given: JPEG 90, lossy WebP 90 (100 is lossless WebP).
    public static let defaultQuality = 90

    /// The formats as a user names them, for messages: "png, svg, pdf, jpeg (.jpg) or webp".
    public static let namesText = "png, svg, pdf, jpeg (.jpg) or webp"
    /// The file extensions, for messages: ".png, .svg, .pdf, .jpg, .jpeg or .webp".
    public static let extensionsText = ".png, .svg, .pdf, .jpg, .jpeg or .webp"
}
