/// The size of a laid-out text, CSS px.
public struct TextSize: Sendable, Equatable, Hashable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}
