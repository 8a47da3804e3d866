import Foundation
import MapRenderCore

/// Trails (`maprender animate --trail DURATION`): behind each point drawn as a marker, the path it
/// took over the last `DURATION` of the animation (playback time: `frames = round(DURATION × fps)`),
/// as a line that fades out, under the markers and over the basemap and the data's lines.
///
/// Frame k's trail of a point is one segment per earlier frame: segment `age` (0 the newest)
/// joins its position at frame `k − age − 1` to its position at frame `k − age`, both as the source
/// gives them (where the data puts it, not its hop into a cluster bubble), while it was present in
/// every frame between. A segment is drawn in the marker's fill colour with opacity
/// `opacity × (1 − age / frames)`; a segment of no length (a point that stood still) is not drawn.
/// So a frame at rest after a pause is the still map, byte for byte, and a frame at rest after
/// motion is the still map with its trail: every pixel away from the trail's segments is the
/// still map's (`TrailTests`).
///
/// PNG frames draw the segments as a line layer (`StyleLayer` over a `ShapeSet`, through the one
/// `ShapeLayout`); the animated SVG draws the same segments, one `<line>` per point and age whose
/// ends follow the frames (`AnimatedSVG`).
struct AnimationTrails: Sendable {
    /// Frames a trail covers (≥ 1).
    let frames: Int
    /// Line width, CSS px.
    let width: Double
    /// The newest segment's opacity.
    let opacity: Double
    let source: AnimationSource
    let style: Style

    static let defaultWidth = 3.0
    static let defaultOpacity = 0.85

    init?(seconds: Double?, fps: Double, source: AnimationSource, style: Style) {
        guard let seconds, seconds > 0 else { return nil }
        frames = max(1, Int((seconds * fps).rounded()))
        width = Self.defaultWidth
        opacity = Self.defaultOpacity
        self.source = source
        self.style = style
    }

    /// One segment of a trail, world units (x continuous: the short way across 180°).
    struct Segment: Sendable, Equatable {
        var key: Int
        var age: Int
        var x0: Double, y0: Double, x1: Double, y1: Double
    }

    /// The segments of frame `k` for the points with keys `drawn`, by key then age.
    func segments(frame k: Int, drawn: [Int]) -> [Segment] {
        guard !drawn.isEmpty, k > 0 else { return [] }
        let wanted = Set(drawn)
        let oldest = max(0, k - frames)
        // Each earlier frame's positions, by key (only the drawn points').
        var positions: [[Int: (Double, Double)]] = []
        positions.reserveCapacity(k - oldest + 1)
        for j in oldest...k {
            let p = source.keyedPositions(j)
            var byKey: [Int: (Double, Double)] = [:]
            byKey.reserveCapacity(min(p.keys.count, wanted.count))
            for (i, key) in p.keys.enumerated() where wanted.contains(key) { byKey[key] = (p.x[i], p.y[i]) }
            positions.append(byKey)
        }
        var out: [Segment] = []
        for key in wanted.sorted() {
            for age in 0..<(k - oldest) {
                let newer = positions.count - 1 - age
                guard let b = positions[newer][key], let a = positions[newer - 1][key] else { break }
                // The short way across 180°: world x is periodic with period 1.
                var ax = a.0
                if ax - b.0 > 0.5 { ax -= 1 } else if b.0 - ax > 0.5 { ax += 1 }
                if ax == b.0 && a.1 == b.1 { continue }
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

extension AnimationSource {
    /// Frame `k`'s keys (as `frame(k).keys`) and world positions, without making the frame.
    func keyedPositions(_ k: Int) -> (keys: [Int], x: [Double], y: [Double]) {
        switch kind {
        case .keyframes(let s):
            let (j, _) = s.timing(k)
            let st = s.state(k)
            return (st.item.map { s.keys[j][$0] }, st.x, st.y)
        case .tracks(let s):
            let st = s.reader.positions(frame: k, hold: s.hold)
            return (st.item, st.x, st.y)
        }
    }
}
