import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite struct XExtentRingTests {
    /// The short-way extent of values in [0, 1) by sorting: the largest gap between neighbours
    /// (the one across 1 → 0 included) is where the data is not.
    static func bruteForce(_ xs: [Double]) -> (min: Double, max: Double) {
        let s = xs.sorted()
        var best = 1 - s.last! + s.first!, start = s.first!, end = s.last!
        for i in s.indices.dropLast() where s[i + 1] - s[i] > best {
            best = s[i + 1] - s[i]
            start = s[i + 1]
            end = s[i] + 1
        }
        return (start, end)
    }

    /// NaN and ±infinity are skipped and counted, never trap, and leave the extent of the other
    /// values as it is (an arc narrower than half the world, anywhere on the ring, across 1 → 0
    /// too; checked against sorting).
    @Test func nonFiniteValuesAreSkippedAndCounted() throws {
        var rng = SeededRandom(seed: 14)
        for _ in 0..<50 {
            let start = Double.random(in: 0..<1, using: &rng), width = Double.random(in: 0.001..<0.45, using: &rng)
            let xs = (0..<Int.random(in: 1...200, using: &rng)).map { _ in
                WrappedMercator.normalise(start + Double.random(in: 0...width, using: &rng))
            }
            var ring = XExtentRing()
            var bad = 0
            for x in xs {
                ring.add(x)
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    ring.add([Double.nan, .infinity, -.infinity, -.nan, .signalingNaN].randomElement(using: &rng)!)
                    bad += 1
                }
            }
            let r = try #require(ring.extent)
            let expected = Self.bruteForce(xs)
            #expect(ring.skipped == bad)
            #expect(r.min == expected.min && r.max == expected.max, "arc from \(start), width \(width)")
        }
    }

    @Test func onlyNonFiniteValuesHaveNoExtent() {
        var ring = XExtentRing()
        for x in [Double.nan, .infinity, -.infinity] { ring.add(x) }
        #expect(ring.extent == nil)
        #expect(ring.skipped == 3)
    }

    /// Finite values far outside [0, 1) go to the end bins instead of trapping in `Int(_:)`.
    @Test func hugeFiniteValuesDoNotTrap() throws {
        var ring = XExtentRing()
        for x in [0.25, 1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e15] { ring.add(x) }
        let r = try #require(ring.extent)
        #expect(ring.skipped == 0)
        #expect(r.min <= 0.25 && r.max >= 0.25)
    }
}
