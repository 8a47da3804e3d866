import Foundation
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// The view of every frame over generated keyframes of every awkward kind: no point, one point,
/// one longitude, the antimeridian, NaN and infinity, huge values; fixed and following views;
/// any number of jobs (`--jobs 9223372036854775807` once overflowed the chunk size). Never a
/// trap, one finite view per frame, the same for every job count.
@Suite struct AnimationViewTests {
    /// Keyframes A → B of the same ids, `frames` frames per transition.
    static func source(_ a: [(lon: Double, lat: Double)], _ b: [(lon: Double, lat: Double)], frames: Int) throws -> AnimationSource {
        func set(_ p: [(lon: Double, lat: Double)]) -> PointSet {
            var s = PointSet()
            for (i, q) in p.enumerated() {
                s.lon.append(q.lon)
                s.lat.append(q.lat)
                s.ids.append(.number(Double(i)))
                s.properties.appendEmptyRow()
            }
            return s
        }
        let sa = set(a), sb = set(b)
        let tr = try KeyframeDiff.diff(sa, sb, fileA: "a", fileB: "b")
        let keyframes = AnimationSource.Keyframes(sets: [sa, sb], transitions: [tr], keys: [Array(0..<tr.count)],
                                                  framesPerTransition: frames, easing: .easeInOut)
        return AnimationSource(kind: .keyframes(keyframes), frameCount: frames + 1, keyCount: tr.count, markerExtent: .zero)
    }

    static func positions(_ kind: Int, _ n: Int, _ rng: inout SeededRandom) -> [(lon: Double, lat: Double)] {
        (0..<n).map { _ in
            switch kind {
            case 0: return (12.5, 41.9)                                                     // one place
            case 1: return (-73.9, Double.random(in: -80...80, using: &rng))                // one longitude
            case 2: return ([180, -180, 179.99, -179.99].randomElement(using: &rng)!, Double.random(in: -60...60, using: &rng))
            case 3: return ([Double.nan, .infinity, -.infinity, 10].randomElement(using: &rng)!,
                            [Double.nan, .infinity, 5].randomElement(using: &rng)!)
            case 4: return ([1e300, -1e300, 1e15, 3].randomElement(using: &rng)!, [1e300, -1e300, 90, -90].randomElement(using: &rng)!)
            default: return (Double.random(in: -180...180, using: &rng), Double.random(in: -85...85, using: &rng))
            }
        }
    }

    @Test func everyFrameGetsAFiniteViewWhateverThePoints() throws {
        var rng = SeededRandom(seed: 2024)
        for trial in 0..<36 {
            let kind = trial % 6
            // Empty, one point, or a few, in either keyframe.
            let na = [0, 1, Int.random(in: 2...25, using: &rng)][trial / 6 % 3]
            let a = Self.positions(kind, na, &rng)
            var b = Self.positions(kind, na, &rng)
            if trial % 4 == 3 { b = [] }            // everything deleted
            let frames = [1, 3, 12][trial % 3]
            let source = try Self.source(a, b, frames: frames)
            for follow in [false, true] {
                var r = AnimationRequest(source: .keyframes(["a", "b"]), output: .inMemory(format: .png))
                r.base.width = 320
                r.base.height = 200
                r.follow = follow
                r.fps = [nil, 0.5, 1000][trial % 3]
                var results: [AnimationView.Views] = []
                for jobs in [1, 3, Int.max] {
                    let v = try AnimationView.compute(r, source: source, jobs: jobs)
                    #expect(v.viewports.count == frames + 1 && v.unwrappedCenter.count == frames + 1)
                    for p in v.viewports {
                        #expect(p.centerX.isFinite && p.centerY.isFinite && p.zoom.isFinite, "trial \(trial): \(p)")
                        #expect(p.zoom >= 0 && p.zoom <= r.base.maxZoom, "trial \(trial): \(p)")
                    }
                    for k in v.unwrappedCenter.indices.dropFirst() {
                        #expect(abs(v.unwrappedCenter[k] - v.unwrappedCenter[k - 1]) <= 0.5, "trial \(trial)")
                    }
                    results.append(v)
                }
                for v in results.dropFirst() {
                    #expect(v.viewports.map(\.centerX) == results[0].viewports.map(\.centerX), "trial \(trial): jobs change the view")
                    #expect(v.viewports.map(\.zoom) == results[0].viewports.map(\.zoom), "trial \(trial): jobs change the view")
                }
            }
        }
    }

    /// Smoothing windows wider than the animation (a huge frame rate from library code, or one
    /// that is not a number) reach the frames there are, without `Int(_:)` trapping.
    @Test func followingCopesWithAnyFrameRate() {
        let fits: [Viewport?] = (0..<7).map { k in
            k == 2 ? nil : Viewport(centerX: 0.99 + 0.005 * Double(k), centerY: 0.4, zoom: Double(k % 3) + 2, width: 100, height: 100)
        }
        for fps in [1e300, .infinity, .nan, 0, -5, 1e-300, 30] {
            let v = AnimationView.follow(fits, fps: fps, fixedZoom: nil, width: 100, height: 100)
            #expect(v.viewports.count == 7)
            #expect(v.viewports.allSatisfy { $0.centerX.isFinite && $0.zoom.isFinite }, "fps \(fps)")
        }
        #expect(AnimationView.smooth([1, 2, 3, 4], sigma: 1e300) == [2.5, 2.5, 2.5, 2.5])
        #expect(AnimationView.smooth([1, 2, 3], sigma: .nan) == [1, 2, 3])
        #expect(AnimationView.follow([], fps: 10, fixedZoom: nil, width: 10, height: 10).viewports.isEmpty)
        #expect(AnimationView.chunkSize(jobs: .max) == 4 << 10)
        #expect(AnimationView.chunkSize(jobs: 1) == 8 && AnimationView.chunkSize(jobs: 4) == 16)
    }

    /// Chunks of frames of millions of points hold fewer frames (memory), never fewer than one per
    /// thread; small inputs keep theirs.
    @Test func chunksOfLargeFramesAreBoundedByMemory() {
        #expect(AnimationView.chunkSize(jobs: 2, points: 10_000) == 8)
        #expect(AnimationView.chunkSize(jobs: 2, points: 2_000_000) == 2)
        #expect(AnimationView.chunkSize(jobs: 1, points: 2_000_000) == 1)
        #expect(AnimationView.chunkSize(jobs: 16, points: 10_000_000) == 16)
        #expect(AnimationView.chunkSize(jobs: 2, points: .max) == 2)
        for points in [0, 1, 1000, 100_000, 400_000, 1_000_000, 5_000_000] {
            let c = AnimationView.chunkSize(jobs: 2, points: points)
            #expect(c >= 2 && c <= 8)
            #expect(c == 2 || c * points * AnimationView.bytesPerPointFrame <= AnimationView.frameBudget)
        }
    }
}
