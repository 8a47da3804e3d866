/// The text inside a marker (`MarkerSymbol.text`): what, in which font and colour, and its
/// measured logical size, centred on `MarkerGeometry.textCenter`.
public struct MarkerText: Hashable, Sendable {
    public var text: String
    public var font: FontSpec
    public var color: RGBA
    /// The logical box Pango measured, CSS px.
    public var width: Double
    public var height: Double

    public init(text: String, font: FontSpec, color: RGBA, width: Double, height: Double) {
        self.text = text; self.font = font; self.color = color; self.width = width; self.height = height
    }
}
