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
        // Folded into [0, 1) as a Double (`Int(x * bins)` would trap for |x| above about 1.4e14);
        // x just below an integer can round up to 1.
        var f = x - x.rounded(.down)
        if !(f < 1) { f = 0 }
        let b = min(Int(f * Double(Self.bins)), Self.bins - 1)
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
        guard !empty, let firstBin = low.firstIndex(where: { $0 < .infinity }) else { return nil }
        let bins = Self.bins
        // The longest run of empty bins on the ring.
        var bestLength = 0, bestStart = 0, runStart = -1
        for k in 1...bins {
            let i = (firstBin + k) % bins
            if low[i] == .infinity {
                if runStart < 0 { runStart = i }
            } else if runStart >= 0 {
                let length = (i - runStart + bins) % bins
                if length > bestLength { bestLength = length; bestStart = runStart }
                runStart = -1
            }
        }
        // Shift the bins before the gap's end by one world, so the data is contiguous.
        let startX = bestLength == 0 ? 0 : Double((bestStart + bestLength) % bins) / Double(bins)
        var lo = Double.infinity, hi = -Double.infinity
        for b in 0..<bins where low[b] < .infinity {
            let shift = bestLength > 0 && low[b] < startX ? 1.0 : 0
            lo = min(lo, low[b] + shift)
            hi = max(hi, high[b] + shift)
        }
        if lo >= 1 { lo -= 1; hi -= 1 }
        return (lo, hi)
    }
}
