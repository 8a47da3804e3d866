/// How one run of shapes is drawn: resolved from a layer's paint for one feature. Shapes in a
/// row with equal paint share one `ShapeBatch` (the built-in land is one fill and one stroke).
public struct ShapePaint: Hashable, Sendable {
    public var fill: RGBA
    public var stroke: RGBA
    public var strokeWidth: Double
    /// Dash and gap lengths in CSS px; empty: solid.
    public var dash: [Double] = []
    public var cap: LineCap = .round
    public var join: LineJoin = .round
    /// A line's edges fade out over this many px inward (a basemap style's `line-blur`); 0: sharp.
    public var blur = 0.0
    /// A polygon filled with this image, repeated (a basemap style's `fill-pattern`), its alpha
    /// the fill's; the repeat starts at the world's top-left corner (`patternX`, `patternY`, CSS
    /// px on the image), as MapLibre's tiles align it.
    public var pattern: SpriteImage?
    public var patternX = 0.0, patternY = 0.0

    public init(fill: RGBA, stroke: RGBA, strokeWidth: Double, dash: [Double] = [],
                cap: LineCap = .round, join: LineJoin = .round) {
        self.fill = fill; self.stroke = stroke; self.strokeWidth = strokeWidth
        self.dash = dash; self.cap = cap; self.join = join
    }
}
