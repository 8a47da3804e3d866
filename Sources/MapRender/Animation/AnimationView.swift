import Foundation
import MapRenderCore

/// The view of every frame, chosen before any frame is drawn so frames stay independent.
///
/// - Fixed (the default): one view fitted to every position of every frame (the short way across
///   the antimeridian, through `ViewFitter`), or the request's `--center`/`--bbox` view.
/// - Follow: each frame fitted to its own points, then smoothed over time: the zoom takes the
///   lowest fitted zoom within half a second either side (so it zooms out in time for points that
///   spread), then centre and zoom go through a Gaussian moving average over a quarter of a second
///   (σ), which is symmetric in time: no lag, no jitter.
enum AnimationView {
    /// One viewport per frame; `centerX` unwrapped (`unwrappedCenter`) so x stays continuous.
    struct Views: Sendable {
        var viewports: [Viewport]
        /// Centre x per frame without the fold into [0, 1): consecutive values differ by < 0.5.
        var unwrappedCenter: [Double]
    }

    static func compute(_ request: AnimationRequest, source: AnimationSource, jobs: Int) throws -> Views {
        let base = request.base
        let n = source.frameCount
        let padding = EdgeInsets(all: base.padding)
        // Room for the largest cluster bubble too, so bubbles near the edge are not cut
        // (a single map refits after clustering instead; frames share one view fixed up front).
        var markerExtent = source.markerExtent
        if base.clustering != nil {
            let r = (base.style.cluster.steps.map(\.radius).max() ?? 0) + base.style.cluster.strokeWidth / 2
            markerExtent = EdgeInsets(top: max(markerExtent.top, r), right: max(markerExtent.right, r),
                                      bottom: max(markerExtent.bottom, r), left: max(markerExtent.left, r))
        }
        switch base.view {
        case .center(let lat, let lon, let zoom):
            let v = ViewFitter.center(lat: lat, lon: lon, zoom: zoom, width: base.width, height: base.height)
            return Views(viewports: Array(repeating: v, count: n), unwrappedCenter: Array(repeating: v.centerX, count: n))
        case .bbox(let b):
            let v = ViewFitter.fit(bounds: b, width: base.width, height: base.height)
            return Views(viewports: Array(repeating: v, count: n), unwrappedCenter: Array(repeating: v.centerX, count: n))
        case .fitAround(let lat, let lon):
            let centre = (x: WebMercator.x(lon: lon), y: WebMercator.y(lat: lat))
            var v = ViewFitter.fit(xs: [], ys: [], around: centre, width: base.width, height: base.height,
                                   extent: markerExtent, padding: padding, maxZoom: base.maxZoom)
            if let box = try extent(of: source, jobs: jobs) {
                v = ViewFitter.fit(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY, around: centre,
                                   width: base.width, height: base.height, extent: markerExtent, padding: padding,
                                   maxZoom: base.maxZoom)
            }
            return Views(viewports: Array(repeating: v, count: n), unwrappedCenter: Array(repeating: v.centerX, count: n))
        case .fit(let zoom):
            if !request.follow {
                guard let box = try extent(of: source, jobs: jobs) else {
                    let w = ViewFitter.world(width: base.width, height: base.height)
                    return Views(viewports: Array(repeating: w, count: n), unwrappedCenter: Array(repeating: w.centerX, count: n))
                }
                var v = ViewFitter.fit(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY,
                                       width: base.width, height: base.height,
                                       extent: markerExtent, padding: padding, maxZoom: base.maxZoom)
                if let z = zoom { v.zoom = z }
                return Views(viewports: Array(repeating: v, count: n), unwrappedCenter: Array(repeating: v.centerX, count: n))
            }
            let fits: [Viewport?] = try FramePool.map(count: n, jobs: jobs) { k in
                var s = source.positions(k)
                if !(s.x.allSatisfy(\.isFinite) && s.y.allSatisfy(\.isFinite)) {
                    // A position without a place (not from the readers, which skip them) is left out.
                    let keep = s.x.indices.filter { s.x[$0].isFinite && s.y[$0].isFinite }
                    s.x = keep.map { s.x[$0] }
                    s.y = keep.map { s.y[$0] }
                }
                guard !s.x.isEmpty else { return nil }
                return ViewFitter.fit(xs: s.x, ys: s.y, width: base.width, height: base.height,
                                      extent: markerExtent, padding: padding, maxZoom: base.maxZoom)
            }
            return follow(fits, fps: request.effectiveFPS, fixedZoom: zoom, width: base.width, height: base.height)
        }
    }

    /// The box of every position of every frame, x the short way round (maxX may exceed 1):
    /// each thread folds the positions of the frames it takes into an `XExtentRing` of its own
    /// (keyframes' without making the frame), and the rings are merged (min and max per bin: the
    /// same box whichever thread took which frame), so memory does not grow with the number of
    /// frames or points. nil when no frame has a point (with finite x and y).
    ///
    /// Making each frame's arrays and folding them all on one thread took 0.5 s of 1M points' 10
    /// frames, most of it page faults of fresh memory (the time moved with the allocator's
    /// thresholds: 133 or 260 ms for the same 500k points).
    static func extent(of source: AnimationSource, jobs: Int) throws -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        /// One thread's fold (a ring is 1 MB: one per thread, not per frame).
        final class Box { var ring = XExtentRing(); var minY = Double.infinity, maxY = -Double.infinity }
        let threads = max(1, min(jobs, source.frameCount, 64))
        let boxes = (0..<threads).map { _ in Box() }
        _ = try FramePool.map(count: source.frameCount, jobs: threads, worker: { boxes[$0] }) { box, k in
            source.forEachPosition(k) { x, y in
                guard x.isFinite && y.isFinite else { return }
                box.ring.add(x)
                box.minY = min(box.minY, y)
                box.maxY = max(box.maxY, y)
            }
        }
        let all = boxes[0]
        // The still lines and polygons are part of every frame.
        let samples = FitSamples(shapes: source.shapes)
        for (x, y) in zip(samples.xs, samples.ys) {
            all.ring.add(x)
            all.minY = min(all.minY, y)
            all.maxY = max(all.maxY, y)
        }
        for b in boxes.dropFirst() {
            all.ring.merge(b.ring)
            all.minY = min(all.minY, b.minY)
            all.maxY = max(all.maxY, b.maxY)
        }
        guard let x = all.ring.extent, all.minY <= all.maxY else { return nil }
        return (x.min, all.minY, x.max, all.maxY)
    }

    /// Frames made at once when frames are streamed: a few per thread, at least 8, and no more
    /// than `frameBudget` bytes of frames of `points` points each (`bytesPerPointFrame`), but
    /// never fewer than one per thread. `jobs` is clamped to 1024 first, so
    /// `--jobs 9223372036854775807` neither overflows the product nor holds a huge chunk of frames
    /// in memory.
    ///
    /// A frame held in a chunk keeps its positions, opacities, keys, points, rest plan and
    /// continuity plan: about 110 bytes a point, measured (2M points, 2 keyframes, 10 frames:
    /// 2.80 GB peak with chunks of 8, 1.45 GB with chunks of 2), counted as 160 for margin. The
    /// bound keeps a chunk under a few hundred MB for millions of points; small inputs keep
    /// their chunks of 8 or more.
    ///
    /// A chunk holds a whole number of frames per thread: the threads wait for each other at the
    /// end of a chunk, so a chunk of 3 frames on 2 threads left one idle for a third of its time
    /// (500k points, 10 frames: chunks of 3, 3, 3, 1 took 7 frame times where chunks of 2 take 5;
    /// the frames' stages grew 2.5x from 250k to 500k points and 1.6x from 500k to 1M).
    static func chunkSize(jobs: Int, points: Int = 0) -> Int {
        let threads = min(max(jobs, 1), 1 << 10)
        let wanted = max(8, 4 * threads)
        let byMemory = frameBudget / max(1, min(points, Int.max / bytesPerPointFrame) * bytesPerPointFrame)
        return max(threads, min(wanted, byMemory) / threads * threads)
    }

    /// Bytes of frames a chunk may hold (see `chunkSize`).
    static let frameBudget = 256 << 20
    /// What a frame held in a chunk costs per point (see `chunkSize`).
    static let bytesPerPointFrame = 160

    /// `x` rounded to a whole number of frames in 0...n (NaN or infinity: n), without the trap
    /// of `Int(_:)` on values it cannot hold.
    static func frames(_ x: Double, _ rule: FloatingPointRoundingRule, atMost n: Int) -> Int {
        x.isFinite ? Int(min(max(x.rounded(rule), 0), Double(n))) : n
    }

    /// Smooths per-frame fits (nil: a frame without points, which takes its neighbours' view).
    static func follow(_ fits: [Viewport?], fps: Double, fixedZoom: Double?, width: Double, height: Double) -> Views {
        let n = fits.count
        guard let firstFit = fits.firstIndex(where: { $0 != nil }) else {
            let w = ViewFitter.world(width: width, height: height)
            return Views(viewports: Array(repeating: w, count: n), unwrappedCenter: Array(repeating: w.centerX, count: n))
        }
        // Fill frames without points from the previous (or the first) fit.
        var filled: [Viewport] = []
        filled.reserveCapacity(n)
        var last = fits[firstFit]!
        for f in fits {
            if let f { last = f }
            filled.append(last)
        }
        // Unwrap x so the centre never jumps by a whole world.
        var cx = [Double](repeating: 0, count: n), cy = [Double](repeating: 0, count: n), z = [Double](repeating: 0, count: n)
        for k in 0..<n {
            let v = filled[k]
            cx[k] = k == 0 ? v.centerX : cx[k - 1] + AnimationMath.shortDelta(from: cx[k - 1], to: v.centerX)
            cy[k] = v.centerY
            z[k] = fixedZoom ?? v.zoom
        }
        let fps = fps > 0 && fps.isFinite ? fps : 10
        // Windows wider than the animation reach no further frames.
        let window = max(1, frames(fps / 2, .toNearestOrAwayFromZero, atMost: n))
        if fixedZoom == nil {
            var lowest = z
            for k in 0..<n {
                let lo = max(0, k - window), hi = min(n - 1, k + window)
                lowest[k] = z[lo...hi].min()!
            }
            z = lowest
        }
        let sigma = max(1, fps / 4)
        cx = smooth(cx, sigma: sigma)
        cy = smooth(cy, sigma: sigma)
        z = smooth(z, sigma: sigma)
        let views = (0..<n).map { Viewport(centerX: cx[$0], centerY: cy[$0], zoom: z[$0], width: width, height: height) }
        return Views(viewports: views, unwrappedCenter: cx)
    }

    /// A Gaussian moving average (σ in frames, cut at 3σ, weights renormalised at the ends):
    /// symmetric, so no lag in the middle; at the ends it averages the frames it has.
    static func smooth(_ v: [Double], sigma: Double) -> [Double] {
        let n = v.count
        guard n > 2, sigma > 0, sigma.isFinite else { return v }
        let reach = frames(3 * sigma, .up, atMost: n)
        let weights = (0...reach).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        return (0..<n).map { k in
            var sum = 0.0, total = 0.0
            for j in max(0, k - reach)...min(n - 1, k + reach) {
                let w = weights[abs(j - k)]
                sum += w * v[j]
                total += w
            }
            return sum / total
        }
    }
}
