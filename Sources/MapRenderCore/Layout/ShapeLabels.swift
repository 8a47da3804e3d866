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
            shapes.forEachUnwrappedVertex(ofRing: r) { x, y, _ in
                let k = shift ?? { let d = (v.centerX - x).rounded(); shift = d; return d }()
                let px = (x + k - v.centerX) * ws + v.width / 2, py = t.y(y)
                ring.append(px); ring.append(py)
                minX = min(minX, px); maxX = max(maxX, px); minY = min(minY, py); maxY = max(maxY, py)
            }
            rings.append(ring)
        }
        guard maxX >= 0, minX <= v.width, maxY >= 0, minY <= v.height else { return nil }
        return rings
    }

    /// A ring of flat x, y pairs as a path.
    static func path(_ ring: [Double]) -> LineLabelPlacement.Path {
        var xs: [Double] = [], ys: [Double] = []
        xs.reserveCapacity(ring.count / 2); ys.reserveCapacity(ring.count / 2)
        for k in stride(from: 0, to: ring.count - 1, by: 2) { xs.append(ring[k]); ys.append(ring[k + 1]) }
        return LineLabelPlacement.Path(x: xs, y: ys)
    }
}
