import Foundation
import Testing
@testable import MapRenderCore

/// id → (x, y) of a frame, or of a keyframe projected.
private func positions(_ f: FrameState) -> [PropertyValue: [Double]] {
    Dictionary(uniqueKeysWithValues: (0..<f.count).map { (f.ids[$0], [f.x[$0], f.y[$0]]) })
}

private func positions(_ s: PointSet) -> [PropertyValue: [Double]] {
    Dictionary(uniqueKeysWithValues: (0..<s.count).map {
        (s.ids[$0], [WrappedMercator.normalise(WebMercator.x(lon: s.lon[$0])), WebMercator.y(lat: s.lat[$0])])
    })
}

@Suite struct AnimationEasingTests {
    @Test func names() {
        #expect(Easing(rawValue: "linear") == .linear)
        #expect(Easing(rawValue: "ease-in-out") == .easeInOut)
        #expect(Easing(rawValue: "cubic") == .cubic)
        #expect(Easing(rawValue: "bounce") == nil)
    }

    @Test(arguments: Easing.allCases) func endpointsAndMonotonic(_ e: Easing) {
        #expect(e.apply(0) == 0)
        #expect(e.apply(1) == 1)
        #expect(e.apply(-0.5) == 0)
        #expect(e.apply(1.5) == 1)
        #expect(abs(e.apply(0.5) - 0.5) < 1e-9)          // all three are symmetric
        var previous = 0.0
        var steepest = 0.0
        let n = 2000
        for k in 1...n {
            let v = e.apply(Double(k) / Double(n))
            #expect(v >= previous, "\(e) goes back at t = \(Double(k) / Double(n))")
            #expect(v >= 0 && v <= 1)
            steepest = max(steepest, (v - previous) * Double(n))
            previous = v
        }
        // maxSpeed really bounds the slope, and is tight.
        #expect(steepest <= e.maxSpeed + 1e-6)
        #expect(steepest >= e.maxSpeed - 1e-2)
    }

    @Test func cssEaseInOutKnownValues() {
        // cubic-bezier(0.42, 0, 0.58, 1) is slow at the ends.
        let e = Easing.easeInOut
        #expect(e.apply(0.1) < 0.1 && e.apply(0.1) > 0)
        #expect(e.apply(0.9) > 0.9 && e.apply(0.9) < 1)
        #expect(abs(e.apply(0.25) + e.apply(0.75) - 1) < 1e-9)   // point symmetry
        #expect(abs(Easing.cubic.apply(0.25) - 0.0625) < 1e-12)
    }
}

@Suite struct AnimationInterpolationTests {
    let a = animationKeyframe([
        (.number(1), 170, 10),     // crosses the antimeridian eastwards
        (.number(2), 0, 0),        // stays
        (.number(3), -20, 60),     // deleted
        (.number(4), -100, -30),   // moves
        (.number(6), -175, 5),     // crosses westwards
    ])
    let b = animationKeyframe([
        (.number(1), -170, 20),
        (.number(2), 0, 0),
        (.number(4), 40, 30),
        (.number(5), 100, -40),    // inserted
        (.number(6), 175, 5),
    ])

    @Test(arguments: Easing.allCases) func endsEqualKeyframes(_ e: Easing) throws {
        let tr = try KeyframeDiff.diff(a, b, fileA: "a", fileB: "b")
        let start = tr.state(at: 0, easing: e)
        let end = tr.state(at: 1, easing: e)
        #expect(positions(start) == positions(a))
        #expect(positions(end) == positions(b))
        #expect(start.opacity.allSatisfy { $0 == 1 } && start.scale.allSatisfy { $0 == 1 })
        #expect(end.opacity.allSatisfy { $0 == 1 } && end.scale.allSatisfy { $0 == 1 })
    }

    @Test func fadesAndGrows() throws {
        let tr = try KeyframeDiff.diff(a, b, fileA: "a", fileB: "b")
        let mid = tr.state(at: 0.25)
        let byID = Dictionary(uniqueKeysWithValues: (0..<mid.count).map { (mid.ids[$0], $0) })
        let inserted = byID[.number(5)]!, deleted = byID[.number(3)]!, moved = byID[.number(4)]!
        #expect(mid.opacity[inserted] == 0.25 && mid.scale[inserted] == 0.25)
        #expect(mid.opacity[deleted] == 0.75 && mid.scale[deleted] == 1)
        #expect(mid.opacity[moved] == 1 && mid.scale[moved] == 1)
        #expect(mid.rowA[inserted] == -1 && mid.rowB[inserted] == 3)
        #expect(mid.rowA[deleted] == 2 && mid.rowB[deleted] == -1)
        #expect(tr.kinds[mid.item[moved]] == .moved)
        // y is linear in Mercator, not in latitude.
        let y = WebMercator.y(lat: -30) + (WebMercator.y(lat: 30) - WebMercator.y(lat: -30)) * 0.25
        #expect(abs(mid.y[moved] - y) < 1e-15)
    }

    @Test func movesTheShortWayAcrossTheAntimeridian() throws {
        let tr = try KeyframeDiff.diff(a, b, fileA: "a", fileB: "b")
        let mid = tr.state(at: 0.5)
        let i = mid.ids.firstIndex(of: .number(1))!
        #expect(abs(abs(mid.lon(i)) - 180) < 1e-9, "midpoint at \(mid.lon(i))°, expected 180°")
        let w = mid.ids.firstIndex(of: .number(6))!
        #expect(abs(abs(mid.lon(w)) - 180) < 1e-9)
        let quarter = tr.state(at: 0.25)
        #expect(abs(quarter.lon(i) - 175) < 1e-9)
        #expect(abs(quarter.lon(w) - (-177.5)) < 1e-9)
        #expect(quarter.x.allSatisfy { $0 >= 0 && $0 < 1 })
    }

    /// Between consecutive frames no point jumps: each step is at most its path's per-frame share
    /// (times the easing's peak speed), measured the short way round.
    @Test(arguments: Easing.allCases) func continuity(_ e: Easing) throws {
        var rows: [(PropertyValue, Double, Double)] = []
        var rowsB: [(PropertyValue, Double, Double)] = []
        var rng = AnimationTestRandom(seed: 42)
        for k in 0..<300 {
            rows.append((.number(Double(k)), rng.next(in: -180...180), rng.next(in: -80...80)))
            rowsB.append((.number(Double(k)), rng.next(in: -180...180), rng.next(in: -80...80)))
        }
        let tr = try KeyframeDiff.diff(animationKeyframe(rows), animationKeyframe(rowsB), fileA: "a", fileB: "b")
        let frames = 60
        var previous = tr.state(at: 0, easing: e)
        var crossings = 0
        for k in 1..<frames {
            let f = tr.state(at: Double(k) / Double(frames - 1), easing: e)
            #expect(f.item == previous.item)
            for i in 0..<f.count {
                let item = f.item[i]
                let pathX = WrappedMercator.shortDelta(from: tr.fromX[item], to: tr.toX[item])
                let path = (pathX * pathX + pow(tr.toY[item] - tr.fromY[item], 2)).squareRoot()
                let dx = WrappedMercator.shortDelta(from: previous.x[i], to: f.x[i])
                let step = (dx * dx + pow(f.y[i] - previous.y[i], 2)).squareRoot()
                #expect(step <= path * e.maxSpeed / Double(frames - 1) + 1e-12,
                        "id \(item) jumps \(step) at frame \(k), path \(path)")
                if abs(f.x[i] - previous.x[i]) > 0.5 { crossings += 1 }
            }
            previous = f
        }
        #expect(crossings > 0, "some paths should cross the antimeridian")
    }

    @Test func frameAsPointSet() throws {
        let tr = try KeyframeDiff.diff(a, b, fileA: "a", fileB: "b")
        let s = tr.state(at: 1).pointSet()
        #expect(s.count == b.count)
        #expect(s.properties.rowCount == b.count)
        let i = s.ids.firstIndex(of: .number(4))!
        #expect(abs(s.lon[i] - 40) < 1e-9 && abs(s.lat[i] - 30) < 1e-9)
    }
}
