/// The horizontal extent of world x values the short way round, gathered one value at a time.
///
/// Values fall into a ring of 2^16 occupancy bins, each keeping its lowest and highest x; the
/// largest run of empty bins is where the data is not, so the extent starts where that gap ends.
/// Streaming keeps memory fixed however many values come (every frame of an animation).
///
/// ```swift
/// var ring = XExtentRing()
/// for x in xs { ring.add(x) }
/// let extent = ring.extent   // (min, max), max above 1 when the data crosses the antimeridian
/// ```
/// Values that are not finite (NaN, ±infinity) have no place on the ring: they are skipped and
/// counted in `skipped`, never trap. Finite values outside [0, 1) are folded into it first (x and
/// x + 1 are the same meridian), so 1.0 (longitude 180) is 0 and no bin index can leave the ring.
/// - Complexity: O(1) per value, O(bins) for `extent`.
public struct XExtentRing: Sendable {
    static let bins = 1 << 16
    private var low = [Double](repeating: .infinity, count: XExtentRing.bins)
    private var high = [Double](repeating: -.infinity, count: XExtentRing.bins)
    private var empty = true
    /// Values left out because they are not finite.
    public private(set) var skipped = 0

    public init() {}

    @inline(__always)
    public mutating func add(_ x: Double) {
        guard x.isFinite else { skipped += 1; return }
        let f = Self.folded(x)
        let b = Self.bin(f)
        if f < low[b] { low[b] = f }
        if f > high[b] { high[b] = f }
        empty = false
    }

    /// Adds every value `other` holds (as if added here).
    public mutating func merge(_ other: XExtentRing) {
        guard !other.empty else { skipped += other.skipped; return }
        for b in 0..<Self.bins {
            if other.low[b] < low[b] { low[b] = other.low[b] }
            if other.high[b] > high[b] { high[b] = other.high[b] }
        }
        empty = false
        skipped += other.skipped
    }

    /// (minX, maxX) with maxX possibly above 1 (Fiji, Tonga, Chukotka); nil when no finite value
    /// was added.
    public var extent: (min: Double, max: Double)? {
        guard !empty, let startX = Self.gapEnd(occupied: { low[$0] < .infinity }) else { return nil }
        var lo = Double.infinity, hi = -Double.infinity
        for b in 0..<Self.bins where low[b] < .infinity {
            let shift = low[b] < startX ? 1.0 : 0
            lo = min(lo, low[b] + shift)
            hi = max(hi, high[b] + shift)
        }
        if lo >= 1 { lo -= 1; hi -= 1 }
        return (lo, hi)
    }

    /// The extent of a ring of all of `xs` (the same to the bit), in two passes over them that
    /// read and write only a table of which bins hold a value (8 KiB): the ring's two tables of
    /// 2^16 Doubles each (1 MiB) were written at random, one cache miss a value (1M points over
    /// land: 21 ms, a tenth of it here). The first pass finds the gap; the second takes the least
    /// and the largest value, those before the gap's end one world on (`extent` does this per
    /// bin: a bin's values are all before the gap's end or none is).
    public static func extent(of xs: UnsafeBufferPointer<Double>) -> (min: Double, max: Double)? {
        var occupied = [UInt64](repeating: 0, count: bins / 64)
        let startX: Double? = occupied.withUnsafeMutableBufferPointer { occupied in
            for x in xs where x.isFinite {
                let b = bin(folded(x))
                occupied[b >> 6] |= 1 << UInt64(b & 63)
            }
            return gapEnd(occupied: { occupied[$0 >> 6] & (1 << UInt64($0 & 63)) != 0 })
        }
        guard let startX else { return nil }
        var lo = Double.infinity, hi = -Double.infinity
        for x in xs where x.isFinite {
            let f = folded(x)
            let v = f < startX ? f + 1 : f + 0
            lo = min(lo, v)
            hi = max(hi, v)
        }
        if lo >= 1 { lo -= 1; hi -= 1 }
        return (lo, hi)
    }

    /// x folded into [0, 1) as a Double (`Int(x * bins)` would trap for |x| above about 1.4e14);
    /// x just below an integer can round up to 1, which is 0. Most world x are in (0, 1) already
    /// and skip the rounding (a libm call here); 0 and -0 take it, which makes both +0.
    @inline(__always)
    static func folded(_ x: Double) -> Double {
        if x > 0 && x < 1 { return x }
        let f = x - x.rounded(.down)
        return f < 1 ? f : 0
    }

    /// The bin of a folded value (its first 16 bits: `f * bins` is exact).
    @inline(__always)
    static func bin(_ f: Double) -> Int { min(Int(f * Double(bins)), bins - 1) }

    /// Where the longest run of empty bins on the ring ends, as an x: the values before it are
    /// one world on. 0 when no bin is empty; nil when none is occupied.
    static func gapEnd(occupied: (Int) -> Bool) -> Double? {
        guard let firstBin = (0..<bins).first(where: occupied) else { return nil }
        var bestLength = 0, bestStart = 0, runStart = -1
        for k in 1...bins {
            let i = (firstBin + k) % bins
            if !occupied(i) {
                if runStart < 0 { runStart = i }
            } else if runStart >= 0 {
                let length = (i - runStart + bins) % bins
                if length > bestLength { bestLength = length; bestStart = runStart }
                runStart = -1
            }
        }
        return bestLength == 0 ? 0 : Double((bestStart + bestLength) % bins) / Double(bins)
    }
}
