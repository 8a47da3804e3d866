import TestSupport
import Foundation
import Testing
import Synchronization
@testable import MapRenderCore
@testable import MapRender

/// A render given one thread (serve's render slots set `threads = 1`) keeps every parallel loop
/// of the pipeline on its thread (`Work.serial`): data sets from 131,072 points, where reading,
/// projecting and clustering would otherwise fork, never put a second thread beside the other
/// slots'. The map is the same as with every core.
@Suite struct OneThreadRenderTests {
    /// 200,000 points in clumps over land and sea, from a fixed seed, as a CSV file.
    static let large: String = {
        var rng = SeededRandom(seed: 49)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var text = "id,lat,lon\n"
        text.reserveCapacity(200_000 * 28)
        for i in 0..<200_000 {
            let clump = Int(rng.next() % 40)
            let lat = -50 + Double(clump % 8) * 13 + unit() * 6
            let lon = -170 + Double(clump / 8) * 70 + unit() * 9
            text += "\(i),\(String(format: "%.5f", lat)),\(String(format: "%.5f", lon))\n"
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("one-thread-\(ProcessInfo.processInfo.processIdentifier).csv")
        try! Data(text.utf8).write(to: url)
        return url.path
    }()

    func request(threads: Int?) -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [Self.large]
        r.width = 640; r.height = 400
        r.threads = threads
        return r
    }

    @Test func aOneThreadRenderNeverForksAndDrawsTheSameMap() throws {
        let serial = Work.Forks(), parallel = Work.Forks()
        let one = try Work.$forks.withValue(serial) { try MapRenderer.render(request(threads: 1)) }
        let all = try Work.$forks.withValue(parallel) { try MapRenderer.render(request(threads: nil)) }
        #expect(one.summary.input.pointsRead == 200_000)
        #expect(serial.value == 0, "a one-thread render forked \(serial.value) loops")
        // The same data with every core forks (else this test could not fail).
        #expect(parallel.value > 0)
        #expect(one.data == all.data, "the one-thread map differs from the map made on every core")
    }

    /// Below the switch, loops still fork; inside it, `inParts` runs one range, in order.
    @Test func theSwitchKeepsPartsOnTheCallingThread() {
        let forks = Work.Forks()
        Work.$forks.withValue(forks) {
            var seen: [Range<Int>] = []
            Work.$serial.withValue(true) { inParts(1 << 18) { seen.append($0) } }
            #expect(seen == [0..<(1 << 18)] && forks.value == 0)
            let total = Atomic<Int>(0)
            inParts(1 << 18) { r in total.add(r.count, ordering: .relaxed) }
            #expect(total.load(ordering: .relaxed) == 1 << 18 && forks.value == 1)
        }
    }
}
