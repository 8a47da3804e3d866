import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// `FixedObstacles` answers as `CollisionIndex` does, and `Callout.mightPlace` refuses only pins
/// whose callout `Callout.place` would not place: both on generated crowds.
@Suite struct FixedObstaclesTests {
    /// Random boxes (fractional, touching on whole and fractional coordinates, some without area,
    /// some off the image): every question gets the exact index's answer.
    @Test(arguments: [1, 2, 3])
    func answersAsTheExactIndex(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var obstacles: [Rect] = []
        for k in 0..<250 {
            var r = Rect(x: Double.random(in: -20...300, using: &rng), y: Double.random(in: -20...200, using: &rng),
                         width: Double.random(in: 0.5...25, using: &rng), height: Double.random(in: 0.5...25, using: &rng))
            if k % 3 == 0 { r.x = r.x.rounded(); r.y = r.y.rounded(); r.width = r.width.rounded(.up) }
            if k % 25 == 0 { r.width = 0 }   // a vertical leg's rect
            if k % 35 == 0 { r.height = 0 }
            obstacles.append(r)
        }
        let fixed = FixedObstacles(width: 300, height: 200, obstacles: obstacles)
        var exact = CollisionIndex(width: 300, height: 200, bounds: nil)
        exact.insert(contentsOf: obstacles)
        var free = 0
        for k in 0..<20_000 {
            var q: Rect
            if k % 4 == 0 {
                // Touching an obstacle from outside, or reaching a fraction into it.
                let o = obstacles[k / 4 % obstacles.count]
                let reach = [0, 0.3, -0.3][k % 3]
                q = Rect(x: o.maxX - reach, y: o.y - 5, width: Double.random(in: 0.2...20, using: &rng), height: 10)
            } else {
                q = Rect(x: Double.random(in: 0...290, using: &rng), y: Double.random(in: 0...190, using: &rng),
                         width: Double.random(in: 0...30, using: &rng), height: Double.random(in: 0...15, using: &rng))
            }
            let expected = exact.canPlace(q)
            if expected { free += 1 }
            #expect(fixed.isFree(q) == expected, "\(q) \(obstacles.filter { $0.intersects(q) })")
        }
        #expect(free > 2000 && free < 18_000, "\(free) of 20000 free")
    }

    /// The cases random boxes hardly ever make: boxes without area on whole pixels inside an
    /// obstacle, boxes of negative size, obstacles whose width vanishes against their x, obstacles
    /// reaching to infinity, a box not finite. (A helper's review found each answered wrongly.)
    @Test func answersAsTheExactIndexAtTheEdgesOfRects() {
        let obstacles = [Rect(x: 10, y: 10, width: 20, height: 20), Rect(x: 256, y: 40, width: 1e-14, height: 10),
                         Rect(x: 100, y: 100, width: .infinity, height: 5), Rect(x: 60, y: 60, width: 0, height: 8),
                         Rect(x: 150, y: 10, width: 5, height: 5)]
        let fixed = FixedObstacles(width: 300, height: 200, obstacles: obstacles)
        var exact = CollisionIndex(width: 300, height: 200, bounds: nil)
        exact.insert(contentsOf: obstacles)
        var queries = [Rect(x: 20, y: 12, width: 0, height: 6), Rect(x: 12, y: 20, width: 6, height: 0),
                       Rect(x: 20, y: 20, width: 0, height: 0), Rect(x: 25, y: 25, width: -4, height: -4),
                       Rect(x: 250, y: 42, width: 10, height: 4), Rect(x: 150, y: 101, width: 10, height: 2),
                       Rect(x: 58, y: 62, width: 4, height: 2), Rect(x: .infinity, y: 0, width: 1, height: 1),
                       Rect(x: 152, y: 12, width: .nan, height: 1)]
        for x in stride(from: 0.0, through: 290, by: 5) {
            for y in stride(from: 0.0, through: 190, by: 5) {
                queries.append(Rect(x: x, y: y, width: 0, height: 7))
                queries.append(Rect(x: x, y: y, width: 7, height: 0))
                queries.append(Rect(x: x + 0.5, y: y, width: -3, height: 3))
            }
        }
        for q in queries { #expect(fixed.isFree(q) == exact.canPlace(q), "\(q)") }
    }

    /// A previous side outside `options.sides`, which `place` tries first: `mightPlace` asks it too.
    @Test func mightPlaceAsksThePreviousSideToo() {
        var options = Callout.Options()
        options.sides = [.above]
        let pin = Rect(x: 94, y: 80, width: 12, height: 20)
        // A wall just above the pin: only below is free.
        let fixed = FixedObstacles(width: 200, height: 200, obstacles: [pin, Rect(x: 0, y: 60, width: 200, height: 19.5)])
        var index = CollisionIndex(width: 200, height: 200, bounds: Rect(x: 0, y: 0, width: 200, height: 200))
        let anchor = (x: 100.0, y: 80.0)
        #expect(!Callout.mightPlace(anchor: anchor, pin: pin, index: index, obstacles: fixed, options: options))
        #expect(Callout.mightPlace(anchor: anchor, pin: pin, index: index, obstacles: fixed, options: options, previous: .below))
        #expect(Callout.place(anchor: anchor, pin: pin, text: TextSize(width: 30, height: 14), index: &index, obstacles: fixed,
                              options: options, previous: .below)?.side == .below)
    }

    /// Pins in a dense field and a sparse one: where `mightPlace` says no, `place` finds no side
    /// for any text, with or without a previous side; it says yes for most pins of the sparse one.
    @Test(arguments: [4, 5])
    func mightPlaceRefusesOnlyWhatPlaceCannotPlace(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let pin = (w: 12.0, h: 20.0)
        var pins: [Rect] = []
        for k in 0..<3000 {
            let crowded = k < 2500
            let x = crowded ? Double.random(in: 20...220, using: &rng) : Double.random(in: 0...600, using: &rng)
            let y = crowded ? Double.random(in: 20...180, using: &rng) : Double.random(in: 0...400, using: &rng)
            pins.append(Rect(x: x - pin.w / 2, y: y - pin.h, width: pin.w, height: pin.h))
        }
        let fixed = FixedObstacles(width: 600, height: 400, obstacles: pins)
        var index = CollisionIndex(width: 600, height: 400, bounds: Rect(x: 0, y: 0, width: 600, height: 400))
        var refused = 0, sparseAllowed = 0
        for (k, p) in pins.enumerated() {
            let anchor = (x: p.x + pin.w / 2, y: p.y)
            let might = Callout.mightPlace(anchor: anchor, pin: p, index: index, obstacles: fixed)
            if !might {
                refused += 1
                for size in [TextSize(width: 0, height: 0), TextSize(width: 3, height: 8), TextSize(width: 40, height: 14),
                             TextSize(width: 160, height: 60)] {
                    for previous in [nil] + Callout.Side.allCases {
                        var copy = index
                        #expect(Callout.place(anchor: anchor, pin: p, text: size, index: &copy, obstacles: fixed,
                                              previous: previous) == nil, "pin \(k): refused, yet placed at \(size)")
                    }
                }
            } else {
                if k >= 2500 { sparseAllowed += 1 }
                _ = Callout.place(anchor: anchor, pin: p, text: TextSize(width: Double.random(in: 10...80, using: &rng), height: 14),
                                  index: &index, obstacles: fixed)
            }
        }
        #expect(refused > 1000, "\(refused) refused")
        #expect(sparseAllowed > 250, "\(sparseAllowed) of the sparse pins might take a callout")
    }

    /// The probe lies within the pointer of every callout on its side: any text, any slide, any
    /// options (corners rounder than the padding, pointers wider than the box), pin or none.
    @Test func theProbeLiesWithinEveryPointer() {
        var rng = SeededRandom(seed: 6)
        for _ in 0..<5000 {
            var o = Callout.Options()
            o.padding = Double.random(in: 0...10, using: &rng)
            o.cornerRadius = Double.random(in: 0...12, using: &rng)
            o.pointerLength = [0, 1e-5, 1e-3, Double.random(in: 0...12, using: &rng)].randomElement(using: &rng)!
            o.pointerWidth = Double.random(in: 0...30, using: &rng)
            let anchor = (x: Double.random(in: 0...1000, using: &rng), y: Double.random(in: 0...1000, using: &rng))
            let pin: Rect? = Bool.random(using: &rng) ? nil : Rect(x: anchor.x - 6, y: anchor.y, width: 12, height: 20)
            let text = TextSize(width: Double.random(in: 0...200, using: &rng), height: Double.random(in: 0...60, using: &rng))
            let bounds = Rect(x: 0, y: 0, width: 1000, height: 1000)
            for side in Callout.Side.allCases {
                guard let probe = Callout.probe(side: side, anchor: anchor, pin: pin, options: o) else {
                    #expect(o.pointerLength < 1e-5)
                    continue
                }
                for shift in [-1.0, 0, 1] {
                    let pointer = Callout.geometry(side: side, anchor: anchor, pin: pin, text: text, bounds: bounds,
                                                   options: o, shift: shift).pointerBounds
                    #expect(pointer.contains(probe), "\(side) \(shift): \(probe) outside \(pointer)")
                }
            }
        }
    }
}
