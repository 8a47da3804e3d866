/// Pixel insets (CSS pixels) around the data: padding, and how far marks reach beyond their point.
public struct EdgeInsets: Sendable, Equatable {
    public var top: Double, right: Double, bottom: Double, left: Double
    public init(top: Double, right: Double, bottom: Double, left: Double) {
        self.top = top; self.right = right; self.bottom = bottom; self.left = left
    }
    public init(all v: Double) { self.init(top: v, right: v, bottom: v, left: v) }
    public static let zero = EdgeInsets(all: 0)
    public static func + (a: EdgeInsets, b: EdgeInsets) -> EdgeInsets {
        EdgeInsets(top: a.top + b.top, right: a.right + b.right, bottom: a.bottom + b.bottom, left: a.left + b.left)
    }
}
