import Foundation
import MapRenderCore

/// Trails (`maprender animate --trail DURATION`): behind each point drawn as a marker, the path it
/// took over the last `DURATION` of the animation (playback time: `frames = round(DURATION × fps)`),
/// as a line that fades out, under the markers and over the basemap and the data's lines.
///
/// Frame k's trail of a point is one segment per earlier frame: segment `age` (0 the newest)
/// joins where frame `k − age − 1` showed the point to where frame `k − age` showed it
/// (`FramePlan.shownX/shownY`: its marker, spread around a shared position when it was; the
/// centre of the bubble it was in; in between while it travelled into or out of one), while it
/// was shown in every frame between. So a trail follows what the reader saw move and ends at
/// the marker drawn: a point that left a bubble trails from the bubble, not from where the data
/// had it while hidden in it. A segment is drawn in the marker's fill colour with opacity
/// `opacity × (1 − age / frames)`; a segment of no length (a point that stood still) is not drawn.
/// So a frame at rest after a pause is the still map, byte for byte, and a frame at rest after
/// motion is the still map with its trail: every pixel away from the trail's segments is the
/// still map's (`TrailTests`).
///
/// PNG frames draw the segments as a line layer (`StyleLayer` over a `ShapeSet`, through the one
/// `ShapeLayout`); the animated SVG reads the lines each frame's scene drew (each path names its
/// segment, `ShapeBatch.pathFeatures`), one `<line>` per point, age and world copy whose ends and
/// paint follow the frames (`AnimatedSVG`): the two cannot drift apart.
struct AnimationTrails: Sendable {
    /// Frames a trail covers (≥ 1).
    let frames: Int
    /// Line width, CSS px.
    let width: Double
    /// The newest segment's opacity.
    let opacity: Double
    let style: Style

    static let defaultWidth = 3.0
    static let defaultOpacity = 0.85

    init?(seconds: Double?, fps: Double, style: Style) {
        guard let seconds, seconds > 0 else { return nil }
        frames = max(1, Int((seconds * fps).rounded()))
        width = Self.defaultWidth
        opacity = Self.defaultOpacity
        self.style = style
    }

    /// One segment of a trail, world units (x continuous: the short way across 180°).
    struct Segment: Sendable, Equatable {
        var key: Int
        var age: Int
        var x0: Double, y0: Double, x1: Double, y1: Double
    }

    /// Where one frame showed its points (world units), by point: `FramePlan`'s keys and shown
    /// positions, and whether each was shown (drawn, or inside a bubble drawn at its centre).
    struct ShownFrame: Sendable {
        var index: Int
        var keys: [Int]
        var x: [Double], y: [Double]
        var shown: [Bool]

        init(_ plan: FramePlan) {
            index = plan.index
            keys = plan.keys
            x = plan.shownX
            y = plan.shownY
            // (Outside the view's clusters a point has presence 0 and no group: not shown.)
            shown = plan.presence.indices.map { plan.presence[$0] > 0 || plan.group[$0] >= 0 }
        }
    }

    /// The frames a trail looks back on, fed in frame order (`add`): the last `frames + 1`.
    struct History: Sendable {
        let depth: Int
        private(set) var frames: [ShownFrame] = []

        init(depth: Int) { self.depth = depth }

        mutating func add(_ plan: FramePlan) {
            precondition(frames.last.map { $0.index + 1 == plan.index } ?? true, "frames are added in order")
            frames.append(ShownFrame(plan))
            if frames.count > depth + 1 { frames.removeFirst(frames.count - depth - 1) }
        }
    }

    /// The segments of the newest frame in `history` for the points with keys `drawn`, by key
    /// then age.
    func segments(history: History, drawn: [Int]) -> [Segment] {
        let recent = history.frames
        guard !drawn.isEmpty, recent.count >= 2 else { return [] }
        let wanted = Set(drawn)
        // Each frame's shown positions, by key (only the drawn points').
        let positions: [[Int: (Double, Double)]] = recent.map { f in
            var byKey: [Int: (Double, Double)] = [:]
            byKey.reserveCapacity(min(f.keys.count, wanted.count))
            for (i, key) in f.keys.enumerated() where f.shown[i] && wanted.contains(key) { byKey[key] = (f.x[i], f.y[i]) }
            return byKey
        }
        var out: [Segment] = []
        for key in wanted.sorted() {
            for age in 0..<(positions.count - 1) {
                let newer = positions.count - 1 - age
                guard let b = positions[newer][key], let a = positions[newer - 1][key] else { break }
                // The short way across 180°: world x is periodic with period 1.
                var ax = a.0
                if ax - b.0 > 0.5 { ax -= 1 } else if b.0 - ax > 0.5 { ax += 1 }
                // (Shown positions come back from pixels: a point at rest may differ by rounding
                // between frames. Under 1e-12 of the world's width, a ten-thousandth of a pixel
                // at zoom 20, is no move.)
                if abs(ax - b.0) < 1e-12 && abs(a.1 - b.1) < 1e-12 { continue }
                out.append(Segment(key: key, age: age, x0: ax, y0: a.1, x1: b.0, y1: b.1))
            }
        }
        return out
    }

    /// The segments as lines of a `ShapeSet` (longitude, latitude; properties `trail-age` and
    /// `trail-color`), and the line layer that draws them faded by age.
    func layer(_ segments: [Segment], colors: [Int: RGBA]) -> (StyleLayer, ShapeSet)? {
        guard !segments.isEmpty else { return nil }
        var set = ShapeSet()
        let age = set.properties.addColumn("trail-age")
        let color = set.properties.addColumn("trail-color")
        for (n, s) in segments.enumerated() {
            let c = colors[s.key] ?? style.marker.fill
            set.properties.appendRow([(age, .number(Double(s.age))), (color, .string(c.description))])
            let lon0 = WebMercator.lon(x: s.x0), lon1 = WebMercator.lon(x: s.x1)
            set.add(kind: .line, rings: [[lon0, WebMercator.lat(y: s.y0), lon1, WebMercator.lat(y: s.y1)]], feature: n, row: n)
        }
        var layer = StyleLayer(id: "maprender-trail", type: .line, source: .data)
        layer.lineWidth = StyleExpression(constant: .number(width))
        // (A parse of a fixed expression: it cannot fail.)
        if let c = try? StyleExpression.parse(jsonText: #"["to-color", ["get", "trail-color"]]"#, file: "trail", path: "line-color", expecting: .color) {
            layer.lineColor = c
        }
        if let o = try? StyleExpression.parse(jsonText: "[\"*\", \(opacity), [\"-\", 1, [\"/\", [\"get\", \"trail-age\"], \(frames)]]]",
                                              file: "trail", path: "line-opacity", expecting: .number) {
            layer.lineOpacity = o
        }
        layer.lineCap = .butt
        layer.lineJoin = .round
        // Each path names its segment (feature n is segments[n]): the animated SVG follows it by that.
        layer.keepsFeatures = true
        return (layer, set)
    }

    /// The opacity of a segment of this age.
    func opacity(age: Int) -> Double { opacity * (1 - Double(age) / Double(frames)) }

    /// Each drawn point's marker fill, by key: the trail's colour.
    static func colors(plan: FramePlan, style: Style) -> [Int: RGBA] {
        let styles = MarkerStyler.resolve(points: plan.points, style: style)
        var out: [Int: RGBA] = [:]
        for i in plan.marks.markerPoint { out[plan.keys[i]] = styles.symbols[Int(styles.index[i])].fill }
        return out
    }
}
