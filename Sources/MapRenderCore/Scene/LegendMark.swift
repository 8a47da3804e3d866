/// A legend of categorical colours: a swatch and a text per entry, in a box.
public struct LegendMark: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var text: String
        public var color: RGBA
        public var textSize: TextSize
    }
    public var title: String?
    public var titleSize: TextSize
    public var entries: [Entry]
    public var font: FontSpec
    public var titleFont: FontSpec
    public var textColor: RGBA
    public var background: RGBA
    public var box: Rect
    public var padding: Double
    public var rowHeight: Double
    public var swatch: Double
    /// Square swatches (the colours of areas: a choropleth), else round (markers).
    public var squareSwatches = false
}
