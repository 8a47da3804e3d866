import Foundation

/// Lines and polygons of the data to name: lines along themselves (`LineLabelPlacement`),
/// polygons at their pole of inaccessibility (`Polylabel`). Their labels go through the same
/// collision index and priority order as the points' labels (`LabelLayout.placePlain`).
public struct ShapeLabels: Sendable {
    public var shapes: ShapeSet
    /// The property whose text names each shape (`--label`, or `--line-by` for lines joined from rows).
    public var field: String

    public init(shapes: ShapeSet, field: String) { self.shapes = shapes; self.field = field }
}

/// One line or polygon label to place, projected into the view.
struct ShapeLabelCandidate {
    enum Geometry {
        /// The visible pieces of a line, in CSS px.
        case line([LineLabelPlacement.Path])
        /// A polygon's largest part (outer ring first, then holes) as flat x, y pairs in CSS px.
        case polygon([[Double]])
    }
    var text: String
    var priority: Double
    var geometry: Geometry

    /// Where a polygon's label is sought to: a pixel.
    static let polePrecision = 1.0

    /// The labels `sets` can have in the view, with priorities from `rank` (the `--label-priority`
    /// column or a population-like one, as points'). A line's parts are each labelled; of a
    /// polygon feature's parts only the largest on the image is. Shapes wholly off the image are
    /// left out.
    static func make(_ sets: [ShapeLabels], viewport v: Viewport, rankName: String?) -> [ShapeLabelCandidate] {
        var out: [ShapeLabelCandidate] = []
        for set in sets {
            let shapes = set.shapes
            guard let col = shapes.properties.columnIndex(set.field) else { continue }
            let rank = BubbleNaming.rankColumn(rankName, properties: shapes.properties)
            // Per polygon feature: the index in `out` of its label and its part's area so far.
            var polygonOf: [Int: (index: Int, area: Double)] = [:]
            for s in 0..<shapes.shapeCount {
                guard let row = shapes.propertyRow(of: s),
                      let raw = shapes.properties.value(column: col, row: row).displayText else { continue }
                let text = LabelText.truncated(raw)
                guard !text.isEmpty else { continue }
                var priority = 0.0
                if let r = rank {
                    let p = shapes.properties.value(column: r.column, row: row).numberValue ?? 0
                    priority = r.smallerFirst ? -p : p
                    if priority.isNaN { priority = -.infinity }
                }
                guard let rings = pixelRings(of: s, in: shapes, viewport: v) else { continue }
                switch shapes.kinds[s] {
                case .line:
                    for ring in rings {
                        let pieces = path(ring).visiblePieces(width: v.width, height: v.height, margin: 0)
                        if !pieces.isEmpty { out.append(.init(text: text, priority: priority, geometry: .line(pieces))) }
                    }
                case .polygon:
                    // The part on the image: a country reaching beyond the view is named where it
                    // is seen (MapLibre, too, places a polygon's label in the part in its tile).
                    let image = Rect(x: 0, y: 0, width: v.width, height: v.height)
                    let rings = rings.map { clip($0, to: image) }.filter { $0.count >= 6 }
                    guard let outer = rings.first else { continue }
                    let area = abs(Polylabel.signedArea(outer))
                    guard area > 0 else { continue }
                    let feature = shapes.feature.isEmpty ? s : shapes.feature[s]
                    if let seen = polygonOf[feature] {
                        guard area > seen.area else { continue }
                        out[seen.index].geometry = .polygon(rings)
                        polygonOf[feature] = (seen.index, area)
                    } else {
                        polygonOf[feature] = (out.count, area)
                        out.append(.init(text: text, priority: priority, geometry: .polygon(rings)))
                    }
                }
            }
        }
        return out
    }

    /// Shape `s`'s rings in CSS px as flat x, y pairs, unwrapped across 180° and at the world copy
    /// nearest the view's centre; nil when the shape lies wholly off the image.
    static func pixelRings(of s: Int, in shapes: ShapeSet, viewport v: Viewport) -> [[Double]]? {
        let t = v.toPixels, ws = v.worldSize
        var rings: [[Double]] = []
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        var shift: Double?
        for r in shapes.rings(of: s) {
            var ring: [Double] = []
            ring.reserveCapacity(2 * shapes.vertices(of: r).count)
            var lastX = Double.nan, lastY = Double.nan
            shapes.forEachUnwrappedVertex(ofRing: r) { x, y, _ in
                let k = shift ?? { let d = (v.centerX - x).rounded(); shift = d; return d }()
                let px = (x + k - v.centerX) * ws + v.width / 2, py = t.y(y)
                minX = min(minX, px); maxX = max(maxX, px); minY = min(minY, py); maxY = max(maxY, py)
                // Vertices within a quarter pixel of the one kept before are left out: a ring of a
                // million vertices costs the pole search and the line walk what its pixels do.
                if abs(px - lastX) < 0.25 && abs(py - lastY) < 0.25 { return }
                ring.append(px); ring.append(py)
                lastX = px; lastY = py
            }
            // A closed ring stays closed.
            if ring.count >= 4, let fx = ring.first, ring[ring.count - 2] != fx || ring[ring.count - 1] != ring[1],
               abs(ring[ring.count - 2] - fx) < 0.25 && abs(ring[ring.count - 1] - ring[1]) < 0.25 {
                ring[ring.count - 2] = fx; ring[ring.count - 1] = ring[1]
            }
            rings.append(ring)
        }
        guard maxX >= 0, minX <= v.width, maxY >= 0, minY <= v.height else { return nil }
        return rings
    }

    /// A closed ring (flat x, y pairs) cut to `r` (Sutherland–Hodgman: one pass per side). Where
    /// the ring leaves the rectangle its edge runs along the rectangle's side, so a label keeps
    /// away from the image's edge as from the polygon's.
    static func clip(_ ring: [Double], to r: Rect) -> [Double] {
        var pts = stride(from: 0, to: ring.count - 1, by: 2).map { (ring[$0], ring[$0 + 1]) }
        if let f = pts.first, let l = pts.last, f == l { pts.removeLast() }
        let sides: [(inside: ((Double, Double)) -> Bool, cut: ((Double, Double), (Double, Double)) -> (Double, Double))] = [
            ({ $0.0 >= r.x }, { a, b in let t = (r.x - a.0) / (b.0 - a.0); return (r.x, a.1 + t * (b.1 - a.1)) }),
            ({ $0.0 <= r.maxX }, { a, b in let t = (r.maxX - a.0) / (b.0 - a.0); return (r.maxX, a.1 + t * (b.1 - a.1)) }),
            ({ $0.1 >= r.y }, { a, b in let t = (r.y - a.1) / (b.1 - a.1); return (a.0 + t * (b.0 - a.0), r.y) }),
            ({ $0.1 <= r.maxY }, { a, b in let t = (r.maxY - a.1) / (b.1 - a.1); return (a.0 + t * (b.0 - a.0), r.maxY) }),
        ]
        for side in sides {
            guard let last = pts.last else { break }
            var out: [(Double, Double)] = []
            var prev = last
            for p in pts {
                switch (side.inside(p), side.inside(prev)) {
                case (true, true): out.append(p)
                case (true, false): out.append(side.cut(prev, p)); out.append(p)
                case (false, true): out.append(side.cut(prev, p))
                case (false, false): break
                }
                prev = p
            }
            pts = out
        }
        guard let first = pts.first else { return [] }
        return (pts + [first]).flatMap { [$0.0, $0.1] }
    }

    /// A ring of flat x, y pairs as a path.
    static func path(_ ring: [Double]) -> LineLabelPlacement.Path {
        var xs: [Double] = [], ys: [Double] = []
        xs.reserveCapacity(ring.count / 2); ys.reserveCapacity(ring.count / 2)
        for k in stride(from: 0, to: ring.count - 1, by: 2) { xs.append(ring[k]); ys.append(ring[k + 1]) }
        return LineLabelPlacement.Path(x: xs, y: ys)
    }
}
