/// A scale bar: one bar per unit system, with its label, in CSS px.
public struct ScaleBarMark: Sendable, Equatable {
    public struct Bar: Sendable, Equatable {
        /// Bar length in CSS px and its text ("500 km", "200 mi").
        public var length: Double
        public var text: String
        public var textSize: TextSize
    }
    public var x: Double, y: Double
    public var bars: [Bar]
    public var font: FontSpec
    public var color: RGBA
    public var background: RGBA
    public var box: Rect
}
