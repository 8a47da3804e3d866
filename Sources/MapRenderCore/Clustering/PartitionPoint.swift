/// The first index of `range` at which `isAtOrAfter` holds, for a predicate that is false and
/// then true along the range (a binary search); `range.upperBound` when it never holds.
///
/// ```swift
/// let sorted = [1, 3, 3, 7]
/// partitionPoint(sorted.indices) { sorted[$0] >= 3 }   // 1
/// ```
@inline(__always)
func partitionPoint(_ range: Range<Int>, _ isAtOrAfter: (Int) -> Bool) -> Int {
    var lo = range.lowerBound, hi = range.upperBound
    while lo < hi {
        let mid = lo + (hi - lo) / 2
        if isAtOrAfter(mid) { hi = mid } else { lo = mid + 1 }
    }
    return lo
}
