public enum FontWeight: String, Sendable, CaseIterable { case normal, bold }

/// A font as layout and the backend see it.
public struct FontSpec: Hashable, Sendable {
    public var family: String
    /// CSS px (already multiplied by `--text-scale`).
    public var size: Double
    public var weight: FontWeight
    /// Extra space between letters, in ems (a basemap style's `text-letter-spacing`); 0: none.
    public var letterSpacing = 0.0
    public init(family: String, size: Double, weight: FontWeight) {
        self.family = family; self.size = size; self.weight = weight
    }
}
