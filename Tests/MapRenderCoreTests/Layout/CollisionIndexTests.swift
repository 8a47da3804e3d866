import Testing
import TestSupport
@testable import MapRenderCore


/// The reference: a list of boxes scanned in full.
fileprivate struct BruteForce {
    var bounds: Rect?
    var boxes: [Rect] = []
    func canPlace(_ r: Rect) -> Bool {
        if r.x.isNaN || r.y.isNaN || r.width.isNaN || r.height.isNaN { return false }
        if let b = bounds, !b.contains(r) { return false }
        return !boxes.contains { $0.intersects(r) }
    }
}

@Suite struct CollisionIndexTests {
    let image = Rect(x: 0, y: 0, width: 800, height: 600)

    /// Interleaves thousands of asks and inserts (labels where free, plus unconditional obstacles)
    /// and compares every answer with the full scan.
    func compareWithBruteForce(bounds: Rect?, cellSize: Double, spread: ClosedRange<Double>,
                               sizes: ClosedRange<Double>, seed: UInt64) -> (yes: Int, no: Int) {
        var rng = SeededRandom(seed: seed)
        var index = CollisionIndex(width: image.width, height: image.height, bounds: bounds, cellSize: cellSize)
        var brute = BruteForce(bounds: bounds)
        var yes = 0, no = 0, mismatches = 0
        for k in 0..<6000 {
            let r = Rect(x: Double.random(in: spread, using: &rng), y: Double.random(in: spread, using: &rng),
                         width: Double.random(in: sizes, using: &rng), height: Double.random(in: sizes, using: &rng) / 2)
            let expected = brute.canPlace(r)
            if index.canPlace(r) != expected { mismatches += 1 }
            if expected { yes += 1 } else { no += 1 }
            if expected || k % 7 == 0 {
                index.insert(r)
                brute.boxes.append(r)
            }
        }
        #expect(mismatches == 0)
        #expect(index.count == brute.boxes.count)
        return (yes, no)
    }

    @Test func sameAnswersAsABruteForceScan() {
        let c = compareWithBruteForce(bounds: image, cellSize: 32, spread: -60...860, sizes: 0...90, seed: 1)
        // Both answers occur often enough for the comparison to mean something.
        #expect(c.yes > 300 && c.no > 300)
    }

    @Test func sameAnswersWithoutBoundsAndBoxesFarOffTheImage() {
        // Off-grid boxes are filed in the edge cells; they must still collide with each other.
        let c = compareWithBruteForce(bounds: nil, cellSize: 25, spread: -3000...3000, sizes: 0...400, seed: 2)
        #expect(c.yes > 300 && c.no > 300)
    }

    /// Removing boxes (a label moved to another side): inserts and removals interleaved with
    /// asks, every answer the full scan's; removing a box never inserted changes nothing.
    @Test func removalsGiveTheFullScansAnswers() {
        var rng = SeededRandom(seed: 5)
        var index = CollisionIndex(width: image.width, height: image.height, bounds: image, cellSize: 32)
        var brute = BruteForce(bounds: image)
        var mismatches = 0, removed = 0
        for k in 0..<6000 {
            let r = Rect(x: Double.random(in: -20...820, using: &rng), y: Double.random(in: -20...620, using: &rng),
                         width: Double.random(in: 0...90, using: &rng), height: Double.random(in: 0...45, using: &rng))
            if index.canPlace(r) != brute.canPlace(r) { mismatches += 1 }
            if brute.canPlace(r) || k % 5 == 0 { index.insert(r); brute.boxes.append(r) }
            if k % 3 == 0, !brute.boxes.isEmpty {
                let i = Int.random(in: 0..<brute.boxes.count, using: &rng)
                let found = index.remove(brute.boxes[i])
                #expect(found)
                brute.boxes.remove(at: i)
                removed += 1
            }
            let none = index.remove(Rect(x: -500, y: -500, width: 1, height: 1))
            #expect(!none)
        }
        #expect(mismatches == 0)
        #expect(removed > 1000 && index.count == brute.boxes.count)
    }

    @Test func sameAnswersWithTinyAndHugeCells() {
        _ = compareWithBruteForce(bounds: image, cellSize: 3, spread: -10...810, sizes: 0...60, seed: 3)
        _ = compareWithBruteForce(bounds: nil, cellSize: 5000, spread: -10...810, sizes: 0...60, seed: 4)
    }

    @Test func bulkInsertGivesTheSameAnswers() {
        var rng = SeededRandom(seed: 5)
        func random(_ n: Int, spread: ClosedRange<Double>) -> [Rect] {
            (0..<n).map { _ in Rect(x: .random(in: spread, using: &rng), y: .random(in: spread, using: &rng),
                                    width: .random(in: 0...70, using: &rng), height: .random(in: 0...30, using: &rng)) }
        }
        for bounds in [image, nil] {
            var index = CollisionIndex(width: image.width, height: image.height, bounds: bounds, cellSize: 20)
            var brute = BruteForce(bounds: bounds)
            // Singles, a bulk batch (with a NaN box, skipped), more singles, another batch.
            let batches = [random(50, spread: -100...900), random(1500, spread: -100...900) + [Rect(x: .nan, y: 0, width: 1, height: 1)],
                           random(50, spread: -100...900), random(800, spread: -2000...2000)]
            for (k, batch) in batches.enumerated() {
                if k % 2 == 1 {
                    index.insert(contentsOf: batch)
                } else {
                    for r in batch { index.insert(r) }
                }
                brute.boxes += batch.filter { !$0.x.isNaN }
            }
            #expect(index.count == brute.boxes.count)
            var mismatches = 0, yes = 0
            for q in random(5000, spread: -200...1000) {
                let expected = brute.canPlace(q)
                if index.canPlace(q) != expected { mismatches += 1 }
                if expected { yes += 1 }
            }
            #expect(mismatches == 0)
            #expect(yes > 50)
        }
    }

    @Test func theImageEdgeIsAnObstacleOnlyWithBounds() {
        let inside = CollisionIndex(width: 800, height: 600, bounds: image)
        #expect(inside.canPlace(Rect(x: 0, y: 0, width: 800, height: 600)))      // touching every edge
        #expect(!inside.canPlace(Rect(x: -0.5, y: 10, width: 20, height: 10)))
        #expect(!inside.canPlace(Rect(x: 790, y: 10, width: 20, height: 10)))
        #expect(!inside.canPlace(Rect(x: 10, y: 595, width: 20, height: 10)))
        #expect(!inside.canPlace(Rect(x: 10, y: -1000, width: 20, height: 10)))

        var free = CollisionIndex(width: 800, height: 600, bounds: nil)
        #expect(free.canPlace(Rect(x: 790, y: 10, width: 20, height: 10)))
        free.insert(Rect(x: 900, y: -100, width: 50, height: 50))
        #expect(!free.canPlace(Rect(x: 920, y: -80, width: 5, height: 5)))
        #expect(free.canPlace(Rect(x: 1000, y: -80, width: 5, height: 5)))
    }

    @Test func touchingBoxesDoNotCollide() {
        var index = CollisionIndex(width: 100, height: 100, bounds: Rect(x: 0, y: 0, width: 100, height: 100), cellSize: 10)
        index.insert(Rect(x: 20, y: 20, width: 10, height: 10))
        #expect(index.canPlace(Rect(x: 30, y: 20, width: 10, height: 10)))
        #expect(index.canPlace(Rect(x: 20, y: 30, width: 10, height: 10)))
        #expect(!index.canPlace(Rect(x: 29.9, y: 20, width: 10, height: 10)))
        #expect(!index.canPlace(Rect(x: 22, y: 22, width: 2, height: 2)))   // inside
        #expect(!index.canPlace(Rect(x: 0, y: 0, width: 100, height: 100)))  // around
    }

    @Test func nanBoxesAreNeverPlacedNorStored() {
        var index = CollisionIndex(width: 100, height: 100, bounds: nil)
        #expect(!index.canPlace(Rect(x: .nan, y: 0, width: 1, height: 1)))
        index.insert(Rect(x: 0, y: .nan, width: 1, height: 1))
        #expect(index.count == 0)
        index.insert(Rect(x: -.infinity, y: 0, width: .infinity, height: 1))   // NaN maxX: ignored
        index.insert(Rect(x: -.infinity, y: 10, width: 1, height: 1))          // infinite but ordered: kept
        #expect(index.count == 1)
    }

    @Test func insertIfPlaceableAndRemoveAll() {
        var index = CollisionIndex(width: 100, height: 100, bounds: Rect(x: 0, y: 0, width: 100, height: 100))
        let r = Rect(x: 10, y: 10, width: 30, height: 30)
        let first = index.insertIfPlaceable(r), second = index.insertIfPlaceable(r)
        #expect(first && !second)
        #expect(index.count == 1)
        index.removeAll()
        #expect(index.count == 0)
        #expect(index.canPlace(r))
    }
}
