import Testing
import TestSupport
@testable import MapRenderCore

/// `keepInParts` keeps what one pass in order would keep, in the same order, whatever the parts.
@Suite struct ClusterPartsTests {
    @Test func keepingInPartsKeepsWhatOnePassKeepsInOrder() {
        var rng = SeededRandom(seed: 21)
        // Below and above the size that is cut into parts; kept shares from none to all.
        for n in [0, 1, 7, 1 << 17 - 1, 1 << 17, 300_001] {
            for share in [0.0, 0.03, 0.5, 1.0] {
                let keep = (0..<n).map { _ in Double(rng.next() % 1000) / 1000 < share }
                var out = [Int](repeating: -1, count: n)
                let kept = out.withUnsafeMutableBufferPointer { out in
                    keepInParts(n, { range in
                        var m = range.lowerBound
                        for i in range where keep[i] {
                            out[m] = i
                            m += 1
                        }
                        return m - range.lowerBound
                    }, move: { from, to, count in
                        for k in 0..<count { out[to + k] = out[from + k] }
                    })
                }
                let expected = (0..<n).filter { keep[$0] }
                #expect(kept == expected.count)
                #expect(Array(out[0..<kept]) == expected, "n \(n), share \(share)")
            }
        }
    }

    @Test func partsCoverTheRangeInOrder() {
        for n in [0, 5, 1 << 17 - 1, 1 << 17, 1_000_003] {
            let ranges = partRanges(n)
            #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == n)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(ranges.count == (n < 1 << 17 ? 1 : workParts))
        }
    }
}
