import Foundation

/// Where a text laid along a line goes: glyph by glyph (cluster by cluster) along the projected
/// path, kept upright, repeated at a spacing on long lines, left out where it does not fit or
/// where the line bends too much under it. Pure geometry in CSS px: the collision test is the
/// caller's (each placement's `boxes` go through the same index as point labels).
///
/// ```swift
/// let run = measurer.glyphRun("Rhine", font: font)
/// let path = LineLabelPlacement.Path(x: xs, y: ys)
/// for p in LineLabelPlacement.placements(along: path, run: run) where p.boxes.allSatisfy(index.canPlace) { ... }
/// ```
///
/// As MapLibre's `symbol-placement: line`:
/// - **anchors**: a line of length L holds n = max(1, ⌊L / spacing⌋) labels, centred at
///   (k + ½)·L/n, so repetitions lie at least `spacing` apart; an anchor too near an end for the
///   text is skipped, and a line too short for the text gets none;
/// - **upright**: a label whose end would lie left of its start is laid along the reversed path;
/// - **max angle**: where the turns of the path under the text, added up (with their sign, so a
///   wiggle cancels) over any stretch of `angleWindow` px, exceed `maxAngle`, the label is left
///   out (MapLibre's `text-max-angle`, 45°; its window is 3/5 of the glyph size);
/// - each glyph is centred on the line, turned as the chord of the path under it.
///
/// - Complexity: O(v + g·log v) per anchor (v vertices, g glyphs).
public enum LineLabelPlacement {
    public struct Options: Sendable, Equatable {
        /// Distance between repeated labels' centres at least, CSS px (MapLibre `symbol-spacing`).
        public var spacing = 250.0
        /// The most the line may turn under a stretch of the text, degrees (`text-max-angle`).
        public var maxAngle = 45.0
        /// The stretch over which turns add up, CSS px; nil: 3/5 of the text's height.
        public var angleWindow: Double?
        /// Added around each glyph's box (a halo's reach), CSS px.
        public var reserve = 0.0

        public init() {}
    }

    /// A projected polyline with its length so far at each vertex (zero-length steps dropped).
    public struct Path: Sendable, Equatable {
        public private(set) var x: [Double] = []
        public private(set) var y: [Double] = []
        /// Distance along the path at each vertex.
        public private(set) var s: [Double] = []

        public init(x: [Double], y: [Double]) {
            for k in 0..<min(x.count, y.count) {
                let px = x[k], py = y[k]
                guard px.isFinite, py.isFinite else { continue }
                if let lx = self.x.last, let ly = self.y.last {
                    let d = ((px - lx) * (px - lx) + (py - ly) * (py - ly)).squareRoot()
                    guard d > 1e-9 else { continue }
                    s.append(s[s.count - 1] + d)
                } else {
                    s.append(0)
                }
                self.x.append(px); self.y.append(py)
            }
        }

        public var length: Double { s.last ?? 0 }
        public var count: Int { x.count }

        public var reversed: Path { Path(x: x.reversed(), y: y.reversed()) }

        /// The point at distance `d` (clamped to the path) and the segment it lies on.
        public func point(at d: Double) -> (x: Double, y: Double, segment: Int) {
            guard count >= 2 else { return (x.first ?? 0, y.first ?? 0, 0) }
            let t = min(max(d, 0), length)
            // The last vertex at or before t.
            var lo = 0, hi = count - 1
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if s[mid] <= t { lo = mid } else { hi = mid }
            }
            let f = (t - s[lo]) / (s[lo + 1] - s[lo])
            return (x[lo] + (x[lo + 1] - x[lo]) * f, y[lo] + (y[lo + 1] - y[lo]) * f, lo)
        }

        /// The pieces of the path that come within `margin` px of the `width` × `height` image:
        /// a long line seen in part gets its labels where it is seen.
        public func visiblePieces(width: Double, height: Double, margin: Double) -> [Path] {
            var out: [Path] = []
            var px: [Double] = [], py: [Double] = []
            let x0 = -margin, y0 = -margin, x1 = width + margin, y1 = height + margin
            func flush() {
                if px.count >= 2 { out.append(Path(x: px, y: py)) }
                px.removeAll(); py.removeAll()
            }
            for k in 0..<max(count - 1, 0) {
                let inView = max(x[k], x[k + 1]) >= x0 && min(x[k], x[k + 1]) <= x1
                    && max(y[k], y[k + 1]) >= y0 && min(y[k], y[k + 1]) <= y1
                if inView {
                    if px.isEmpty { px.append(x[k]); py.append(y[k]) }
                    px.append(x[k + 1]); py.append(y[k + 1])
                } else {
                    flush()
                }
            }
            flush()
            return out
        }
    }

    /// One label laid along the path.
    public struct Placement: Sendable, Equatable {
        public var glyphs: [PathLabelMark.Glyph]
        /// Per glyph, its rotated box's bounds (plus the reserve): what the collision index holds.
        public var boxes: [Rect]
        /// Distance of the label's centre along the path as given.
        public var anchor: Double
        /// Laid along the reversed path, to stay upright.
        public var flipped: Bool
    }

    /// Distances along a path of `length` where labels of `textLength` are centred.
    public static func anchors(length: Double, textLength: Double, spacing: Double) -> [Double] {
        guard length > 0, textLength <= length, spacing > 0 else { return [] }
        let n = max(1, min(Int(length / spacing), 10_000))
        let step = length / Double(n)
        var out: [Double] = []
        for k in 0..<n {
            let d = (Double(k) + 0.5) * step
            if d - textLength / 2 >= 0 && d + textLength / 2 <= length { out.append(d) }
        }
        return out.isEmpty ? [length / 2] : out
    }

    /// Every label the path can hold, in order along it (before any collision test).
    public static func placements(along path: Path, run: GlyphRun, options: Options = Options()) -> [Placement] {
        guard path.count >= 2, !run.clusters.isEmpty, run.width > 0 else { return [] }
        let reversed = path.reversed
        return anchors(length: path.length, textLength: run.width, spacing: options.spacing).compactMap {
            place(run, at: $0, on: path, reversed: reversed, options: options)
        }
    }

    /// The label centred at distance `d` along `path`, upright, or nil where the path bends too much.
    public static func place(_ run: GlyphRun, at d: Double, on path: Path, reversed: Path? = nil,
                             options: Options = Options()) -> Placement? {
        let w = run.width, length = path.length
        guard d - w / 2 >= -1e-9, d + w / 2 <= length + 1e-9 else { return nil }
        let a = path.point(at: d - w / 2), b = path.point(at: d + w / 2)
        let flip = b.x < a.x
        let along = flip ? (reversed ?? path.reversed) : path
        let centre = flip ? length - d : d
        let window = options.angleWindow ?? run.height * 0.6
        guard !bendsTooMuch(along, from: centre - w / 2, to: centre + w / 2, window: window,
                            maxAngle: options.maxAngle * .pi / 180) else { return nil }
        var glyphs: [PathLabelMark.Glyph] = [], boxes: [Rect] = []
        glyphs.reserveCapacity(run.clusters.count); boxes.reserveCapacity(run.clusters.count)
        let h = run.height, r = options.reserve
        for k in run.clusters.indices {
            let adv = run.advance[k]
            let c = centre - w / 2 + run.x[k] + adv / 2
            let p = along.point(at: c)
            // Turned as the chord under the glyph (at least a pixel long, so a glyph on a
            // vertex takes the mean direction of its two segments).
            let half = max(adv / 2, 0.5)
            let p0 = along.point(at: c - half), p1 = along.point(at: c + half)
            var angle = atan2(p1.y - p0.y, p1.x - p0.x)
            if !angle.isFinite { angle = 0 }
            let cs = cos(angle), sn = sin(angle)
            // The glyph's logical box is centred on the line: its baseline lies (baseline - h/2) below.
            let drop = run.baseline - h / 2
            glyphs.append(.init(text: run.clusters[k], start: k < run.start.count ? run.start[k] : -1, x: p.x - adv / 2 * cs - drop * sn, y: p.y - adv / 2 * sn + drop * cs,
                                angle: angle))
            let ex = abs(cs) * adv / 2 + abs(sn) * h / 2 + r, ey = abs(sn) * adv / 2 + abs(cs) * h / 2 + r
            boxes.append(Rect(x: p.x - ex, y: p.y - ey, width: 2 * ex, height: 2 * ey))
        }
        return Placement(glyphs: glyphs, boxes: boxes, anchor: d, flipped: flip)
    }

    /// Whether the turns at the path's vertices between `from` and `to`, added up with their sign
    /// over any stretch of `window` px, exceed `maxAngle` radians.
    static func bendsTooMuch(_ path: Path, from: Double, to: Double, window: Double, maxAngle: Double) -> Bool {
        guard path.count >= 3 else { return false }
        var turns: [(s: Double, angle: Double)] = []
        for k in 1..<(path.count - 1) where path.s[k] > from && path.s[k] < to {
            let a0 = atan2(path.y[k] - path.y[k - 1], path.x[k] - path.x[k - 1])
            let a1 = atan2(path.y[k + 1] - path.y[k], path.x[k + 1] - path.x[k])
            var t = a1 - a0
            while t > .pi { t -= 2 * .pi }
            while t <= -.pi { t += 2 * .pi }
            turns.append((path.s[k], t))
        }
        var first = 0, sum = 0.0
        for (k, turn) in turns.enumerated() {
            sum += turn.angle
            while turns[first].s < turn.s - window { sum -= turns[first].angle; first += 1 }
            if abs(sum) > maxAngle + 1e-9 { return true }
        }
        return false
    }
}
