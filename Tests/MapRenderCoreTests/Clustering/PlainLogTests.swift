import Testing
import TestSupport
@testable import MapRenderCore

/// `PlainLog` keeps what was appended, in order, through growth, `reserve` and emptying.
@Suite struct PlainLogTests {
    @Test func appendsSurviveGrowthAndReserve() {
        var rng = SeededRandom(seed: 5)
        var log = PlainLog<(index: Int32, ref: Int32)>(capacity: 1)
        defer { log.deallocate() }
        var expected: [(Int32, Int32)] = []
        for round in 0..<4 {
            log.removeAll()
            expected.removeAll()
            #expect(log.count == 0)
            // Rounds that start with room and rounds that grow from what the last one left.
            if round == 2 { log.reserve(5000) }
            for _ in 0..<(1000 << round) {
                if rng.next() % 97 == 0 { log.reserve(log.count + Int(rng.next() % 300)) }
                let value = (Int32(truncatingIfNeeded: rng.next()), Int32(truncatingIfNeeded: rng.next()))
                log.append(value)
                expected.append(value)
            }
            #expect(log.count == expected.count && log.capacity >= log.count)
            let wrong = expected.indices.first { log.buffer[$0] != expected[$0] }
            #expect(wrong == nil, "round \(round): value \(wrong ?? 0) differs")
        }
    }
}
