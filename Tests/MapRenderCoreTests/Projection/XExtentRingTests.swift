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

    /// Inputs of every awkward kind, generated: none, one value, all equal, the antimeridian
    /// (x = 0 and x = 1.0, longitude ±180), NaN and ±infinity, huge values, whole worlds away,
    /// random arcs and scatters. Never a trap; the extent covers every finite value (folded into
    /// [0, 1), x and x + 1 being one meridian) and is no longer than the shortest arc that does,
    /// found by sorting, give or take a bin on each side.
    @Test func generatedInputsAreCoveredTheShortWay() throws {
        var rng = SeededRandom(seed: 1414)
        let bin = 1.0 / Double(XExtentRing.bins)
        for trial in 0..<400 {
            let n = Int.random(in: 0...40, using: &rng)
            let xs: [Double] = (0..<n).map { _ in
                switch trial % 8 {
                case 0: return 0.3
                case 1: return [0.0, 1.0, -0.0, 1.0 - 1e-17, 0.9999999999999999].randomElement(using: &rng)!
                case 2: return [Double.nan, .infinity, -.infinity, 0.25].randomElement(using: &rng)!
                case 3: return [1e300, -1e300, .greatestFiniteMagnitude, 1e15, -1e-300, .leastNonzeroMagnitude].randomElement(using: &rng)!
                case 4: return Double.random(in: 0..<1, using: &rng) + Double(Int.random(in: -3...3, using: &rng))
                case 5: return Double.random(in: 0.9..<1.1, using: &rng)   // across the antimeridian, unfolded
                default: return Double.random(in: -2..<2, using: &rng)
                }
            }
            var ring = XExtentRing()
            for x in xs { ring.add(x) }
            let finite = xs.filter(\.isFinite).map { x -> Double in
                let f = x - x.rounded(.down)
                return f < 1 ? f : 0
            }
            #expect(ring.skipped == xs.count - finite.count)
            guard let r = ring.extent else {
                #expect(finite.isEmpty, "trial \(trial): no extent for \(xs)")
                continue
            }
            try #require(!finite.isEmpty, "trial \(trial): an extent for \(xs)")
            #expect(r.min >= 0 && r.min < 1 && r.max >= r.min && r.max - r.min < 1, "trial \(trial): \(r)")
            for f in finite {
                #expect((f >= r.min && f <= r.max) || (f + 1 >= r.min && f + 1 <= r.max), "trial \(trial): \(f) outside \(r)")
            }
            let shortest = Self.bruteForce(finite)
            #expect(r.max - r.min <= shortest.max - shortest.min + 2 * bin, "trial \(trial): \(r) vs \(shortest)")
        }
    }

    /// Values whole worlds apart are the same meridians: the same extent.
    @Test func wholeWorldsApartGiveTheSameExtent() throws {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<50 {
            let xs = (0..<Int.random(in: 1...30, using: &rng)).map { _ in Double.random(in: 0.6..<0.95, using: &rng) }
            var a = XExtentRing(), b = XExtentRing()
            for x in xs { a.add(x) }
            for x in xs { b.add(x + Double(Int.random(in: -5...5, using: &rng))) }
            let ea = try #require(a.extent), eb = try #require(b.extent)
            #expect(abs(ea.min - eb.min) < 1e-9 && abs(ea.max - eb.max) < 1e-9, "\(ea) vs \(eb)")
        }
    }

    /// Values added to rings of their own and merged give the ring of all of them: the same
    /// extent to the bit and the same count of skipped values, whatever the split.
    @Test func mergedRingsAreTheRingOfAllValues() throws {
        var rng = SeededRandom(seed: 5)
        for round in 0..<30 {
            let centre = Double.random(in: -2...2, using: &rng), spread = Double.random(in: 0...0.8, using: &rng)
            var values = (0..<Int.random(in: 0...400, using: &rng)).map { _ in centre + Double.random(in: -spread...spread, using: &rng) }
            if round % 5 == 0 { values += [.nan, .infinity] }
            var all = XExtentRing()
            for v in values { all.add(v) }
            var parts = [XExtentRing](repeating: XExtentRing(), count: 1 + round % 4)
            for v in values { parts[Int.random(in: 0..<parts.count, using: &rng)].add(v) }
            var merged = parts[0]
            for p in parts.dropFirst() { merged.merge(p) }
            #expect(merged.skipped == all.skipped)
            if let e = all.extent {
                let m = try #require(merged.extent)
                #expect(m.min == e.min && m.max == e.max, "round \(round)")
            } else {
                #expect(merged.extent == nil)
            }
        }
    }

    /// The extent of values in two passes (`extent(of:)`, what fitting a map uses) is the ring's
    /// extent of the same values to the bit (its sign too), with values in and out of [0, 1),
    /// 0 and -0, 1, values just below whole numbers, huge ones, non-finite ones, and arcs
    /// across 1 -> 0.
    @Test func extentInTwoPassesIsTheRingsExtent() throws {
        var rng = SeededRandom(seed: 11)
        let special: [Double] = [0, -0.0, 1, -1, 2, 1.0.nextDown, (-1.0).nextDown, 0.5, 1e300, -1e300,
                                 .nan, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude]
        for round in 0..<60 {
            let centre = Double.random(in: -2...2, using: &rng), spread = Double.random(in: 0...0.8, using: &rng)
            var values = (0..<Int.random(in: 0...500, using: &rng)).map { _ in centre + Double.random(in: -spread...spread, using: &rng) }
            if round % 3 == 0 { values += (0..<5).map { _ in special.randomElement(using: &rng)! } }
            if round == 0 { values = special }
            if round == 1 { values = [.nan, .infinity] }
            values.shuffle(using: &rng)
            var ring = XExtentRing()
            for v in values { ring.add(v) }
            let twoPasses = values.withUnsafeBufferPointer { XExtentRing.extent(of: $0) }
            if let e = ring.extent {
                let t = try #require(twoPasses, "round \(round)")
                #expect(t.min.bitPattern == e.min.bitPattern && t.max.bitPattern == e.max.bitPattern, "round \(round)")
            } else {
                #expect(twoPasses == nil, "round \(round)")
            }
        }
    }
}
