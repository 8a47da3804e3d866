import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite struct ClusterSpreaderTests {
    let pin = MarkerSymbol(shape: .pin, size: 28, fill: .black, stroke: .white, strokeWidth: 1.5, opacity: 1)

    func minDistance(_ o: [(dx: Double, dy: Double)]) -> Double {
        var m = Double.infinity
        for i in o.indices { for j in o.indices where j > i { m = min(m, hypot(o[i].dx - o[j].dx, o[i].dy - o[j].dy)) } }
        return m
    }

    @Test(arguments: [2, 3, 5, 8, 9, 30, 50, 200])
    func spreadAnchorsAreAtLeastOneSeparationApart(count: Int) {
        let s = ColocatedSpreader.separation(for: pin.extent)
        let o = ColocatedSpreader.offsets(count: count, separation: s)
        #expect(o.count == count)
        #expect(minDistance(o) >= s - 1e-9)
        // No two pin boxes overlap.
        let e = pin.extent
        for i in o.indices {
            for j in o.indices where j > i {
                let a = Rect(x: o[i].dx - e.left, y: o[i].dy - e.top, width: e.left + e.right, height: e.top + e.bottom)
                let b = Rect(x: o[j].dx - e.left, y: o[j].dy - e.top, width: e.left + e.right, height: e.top + e.bottom)
                #expect(!a.intersects(b), "pins \(i) and \(j) of \(count) overlap")
            }
        }
    }

    @Test func ringGrowsWithItsCount() {
        let s = 30.0
        var last = 0.0
        for n in 3...ColocatedSpreader.ringMaximum {
            let r = ColocatedSpreader.offsets(count: n, separation: s).map { hypot($0.dx, $0.dy) }
            #expect(r.allSatisfy { abs($0 - r[0]) < 1e-9 })   // a circle
            #expect(r[0] > last)
            last = r[0]
        }
        // The first member sits at the top.
        let o = ColocatedSpreader.offsets(count: 5, separation: s)
        #expect(abs(o[0].dx) < 1e-9 && o[0].dy < 0)
    }

    @Test func groupsExactAndWithinTolerance() {
        let lon = [1.0, 2.0, 1.0, 3.0, 1.0, 2.0], lat = [5.0, 6.0, 5.0, 7.0, 5.0, 6.0]
        let px = [0.0, 10, 0, 30, 0, 10], py = [0.0, 0, 0, 0, 0, 0]
        let exact = ColocatedSpreader.groups(count: 6, exactKey: { (lon[$0].bitPattern, lat[$0].bitPattern) },
                                             px: px, py: py, tolerance: 0)
        #expect(exact == [[0, 2, 4], [1, 5]])
        let near = ColocatedSpreader.groups(count: 6, exactKey: { (lon[$0].bitPattern, lat[$0].bitPattern) },
                                            px: px, py: py, tolerance: 12)
        #expect(near == [[0, 1, 2, 4, 5]])
    }

    /// Property: exact groups are those a dictionary of coordinates gives, on generated points
    /// with many repeats (few distinct coordinates, so most probes meet another key), -0 and 0
    /// kept apart (they are different bit patterns, as the planner's keys are).
    @Test(arguments: [1, 2, 3])
    func exactGroupsAgreeWithADictionary(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let n = 5000 * Int(seed)
        let distinct = UInt64(n / (seed == 1 ? 2 : 40))
        var lon = [Double](), lat = [Double]()
        for _ in 0..<n {
            let k = rng.next() % distinct
            lon.append(k == 0 ? -0.0 : Double(k % 360) - 180 + Double(k / 360) * 1e-7)
            lat.append(k == 1 ? 0.0 : Double(k % 170) - 85)
        }
        let px = [Double](repeating: 0, count: n), py = px
        let got = ColocatedSpreader.groups(count: n, exactKey: { (lon[$0].bitPattern, lat[$0].bitPattern) },
                                           px: px, py: py, tolerance: 0)
        var byKey: [[UInt64]: [Int]] = [:]
        for i in 0..<n { byKey[[lon[i].bitPattern, lat[i].bitPattern], default: []].append(i) }
        let expected = byKey.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
        #expect(got == expected)
    }
}
