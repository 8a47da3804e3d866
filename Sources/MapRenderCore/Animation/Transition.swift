/// What happens to each id between two keyframes, as flat columns (one entry per id).
///
/// Made by ``KeyframeDiff/diff(_:_:fileA:fileB:)``. Entries are in the order of keyframe B,
/// then the deleted ones in the order of keyframe A. Positions are Web Mercator x in [0, 1)
/// and y; an inserted point has from = to = its B position, a deleted one from = to = its
/// A position.
///
/// ```swift
/// let tr = try KeyframeDiff.diff(a, b, fileA: "day1.csv", fileB: "day2.csv")
/// for k in 0..<60 {
///     let frame = tr.state(at: Double(k) / 59, easing: .easeInOut)
///     // draw frame.x, frame.y with frame.opacity, frame.scale
/// }
/// ```
public struct Transition: Sendable {
    public enum Kind: UInt8, Sendable, CaseIterable {
        /// In both keyframes, at different positions.
        case moved
        /// In both keyframes, at the same projected position.
        case unchanged
        /// Only in B: fades and grows in.
        case inserted
        /// Only in A: fades out.
        case deleted
    }

    public var ids: [PropertyValue] = []
    public var kinds: [Kind] = []
    public var fromX: [Double] = []
    public var fromY: [Double] = []
    public var toX: [Double] = []
    public var toY: [Double] = []
    /// The row in keyframe A, -1 for inserted ids.
    public var rowA: [Int] = []
    /// The row in keyframe B, -1 for deleted ids.
    public var rowB: [Int] = []

    public init() {}

    public var count: Int { ids.count }

    /// Room for `n` entries without growing.
    public mutating func reserveCapacity(_ n: Int) {
        ids.reserveCapacity(n); kinds.reserveCapacity(n)
        fromX.reserveCapacity(n); fromY.reserveCapacity(n); toX.reserveCapacity(n); toY.reserveCapacity(n)
        rowA.reserveCapacity(n); rowB.reserveCapacity(n)
    }

    /// How many entries are of a kind.
    public func count(of kind: Kind) -> Int { kinds.reduce(0) { $0 + ($1 == kind ? 1 : 0) } }

    /// The frame at animation time `t` (clamped to 0...1) after easing.
    ///
    /// With progress p = `easing.apply(t)`: moved points are a fraction p of the way, x the short
    /// way round the antimeridian, y linear in Mercator; inserted points have opacity and scale
    /// p; deleted points opacity 1 - p (scale 1). Points with opacity 0 are left out, so the
    /// frame at t = 0 holds exactly A's points and at t = 1 exactly B's.
    /// - Complexity: O(count).
    public func state(at t: Double, easing: Easing = .linear) -> FrameState {
        let p = easing.apply(t)
        var f = FrameState()
        f.reserveCapacity(count)
        f.rowA.reserveCapacity(count)
        f.rowB.reserveCapacity(count)
        for i in 0..<count {
            guard let e = entry(i, progress: p) else { continue }
            f.x.append(e.x)
            f.y.append(e.y)
            f.opacity.append(e.opacity)
            f.scale.append(e.scale)
            f.ids.append(ids[i])
            f.item.append(i)
            f.rowA.append(rowA[i])
            f.rowB.append(rowB[i])
        }
        return f
    }

    /// The positions of `state(at:easing:)`'s points, in its order, without making the frame
    /// (fitting a view to every frame reads nothing else).
    public func forEachPosition(at t: Double, easing: Easing = .linear, _ body: (Double, Double) -> Void) {
        let p = easing.apply(t)
        for i in 0..<count {
            if let e = entry(i, progress: p) { body(e.x, e.y) }
        }
    }

    /// Entry `i` at progress `p`: its position, opacity and scale; nil when it is not drawn.
    @inline(__always)
    private func entry(_ i: Int, progress p: Double) -> (x: Double, y: Double, opacity: Double, scale: Double)? {
        let opacity: Double, scale: Double
        switch kinds[i] {
        case .moved, .unchanged: opacity = 1; scale = 1
        case .inserted: opacity = p; scale = p
        case .deleted: opacity = 1 - p; scale = 1
        }
        if opacity <= 0 { return nil }
        if kinds[i] == .moved {
            let pos = WrappedMercator.interpolate(x0: fromX[i], y0: fromY[i], x1: toX[i], y1: toY[i], f: p)
            return (pos.x, pos.y, opacity, scale)
        }
        return (toX[i], toY[i], opacity, scale)
    }

    mutating func append(id: PropertyValue, kind: Kind, from: (x: Double, y: Double),
                         to: (x: Double, y: Double), rowA a: Int, rowB b: Int) {
        ids.append(id)
        kinds.append(kind)
        fromX.append(from.x); fromY.append(from.y)
        toX.append(to.x); toY.append(to.y)
        rowA.append(a); rowB.append(b)
    }
}
