/// How colocated pins are spread (`--spread-tolerance`, `--spread-max`).
public struct SpreadOptions: Sendable, Equatable {
    /// 0: only points on exactly the same coordinate form a group; otherwise points closer than this many pixels.
    public var tolerance: Double = 0
    /// A group larger than this is drawn as a bubble even at max zoom: zooming never separates it.
    public var maximum: Int = 50
    public init(tolerance: Double = 0, maximum: Int = 50) { self.tolerance = tolerance; self.maximum = maximum }
}
