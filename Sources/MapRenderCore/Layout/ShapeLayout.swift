import Foundation

/// Projects lines and polygons (the basemap's, the data's) into the view's pixels as batches of
/// one paint, for one fill or line layer.
///
/// Rings that cross the antimeridian are unwrapped (consecutive vertices never jump by more than half
/// the world), and each shape is drawn at every world copy that overlaps the view, so a view across
/// 180° shows both sides. Shapes outside the view are culled; vertices closer than a quarter pixel
/// to the previous one are dropped, and so is a vertex outside the view on the same side as both
/// the vertex kept before it and the one after it (the path between them stays on that side), so
/// a million-vertex track seen in part costs only what is seen. Polygon edges lying on a cut (both
/// ends on +180°, both on -180°, or both on the clamped ±85.05° edge, where Natural Earth splits
/// Chukotka, Fiji and Antarctica) are listed in `ShapeBatch.unstroked`, so no false border is
/// drawn along them.
public enum ShapeLayout {
    /// Which cut a vertex lies on: 1 at +180°, 2 at -180°, 4 at the north edge, 8 at the south edge.
    @inline(__always)
    static func cutSide(lon: Double, lat: Double) -> UInt8 {
        var s: UInt8 = 0
        if lon >= 180 - 1e-9 { s |= 1 } else if lon <= -180 + 1e-9 { s |= 2 }
        if lat >= WebMercator.maxLatitude - 1e-9 { s |= 4 } else if lat <= -WebMercator.maxLatitude + 1e-9 { s |= 8 }
        return s
    }

    /// The batches of one layer: a fill layer draws `shapes`' polygons, a line layer its lines
    /// (and, unless it takes lines only, its polygons' outlines). A feature the layer's filter
    /// refuses, or whose paint gives nothing to see, is left out.
    public static func batches(for shapes: ShapeSet, layer: StyleLayer, viewport v: Viewport) -> [ShapeBatch] {
        guard layer.type != .background, layer.shows(atZoom: v.zoom), !shapes.isEmpty else { return [] }
        let paint = LayerPaint(layer: layer, properties: shapes.properties, zoom: v.zoom)
        let asPolygon = layer.type == .fill
        // The data's lines are simplified to a quarter pixel (Douglas–Peucker); the built-in
        // basemap is generalised for its scales already (1:110m, 1:50m) and drawn as it is.
        var out = batches(for: shapes, viewport: v, strokeMargin: 4, simplify: layer.source == .data,
                          keepsFeatures: layer.keepsFeatures) { s in
            let kind = shapes.kinds[s]
            switch layer.type {
            case .fill: guard kind == .polygon else { return nil }
            case .line: guard kind == .line || layer.geometry == .any else { return nil }
            case .background: return nil
            }
            guard var p = paint.paint(row: shapes.propertyRow(of: s)) else { return nil }
            if p.pattern != nil {
                // Whole pixels: every backend then samples the image at the same places.
                p.patternX = (v.width / 2 - v.centerX * v.worldSize).rounded()
                p.patternY = (v.height / 2 - v.centerY * v.worldSize).rounded()
            }
            // A line layer strokes a polygon's rings as closed paths without a fill.
            return (asPolygon || kind == .polygon ? .polygon : .line, p)
        }
        if layer.source == .data || layer.fillsShapesApart { for i in out.indices { out[i].fillsPathsApart = true } }
        return out
    }

    /// The basemap drawn with a style's `basemap` section (its default layers).
    public static func batches(for shapes: ShapeSet, viewport v: Viewport, style: Style) -> [ShapeBatch] {
        style.defaultShapeLayers.filter { $0.source == .basemap }.flatMap { batches(for: shapes, layer: $0, viewport: v) }
    }

    /// How far, px, a drawn great-circle arc (`ShapeSet.greatCircle`) may lie from the true one:
    /// a fifth of a pixel, under the quarter pixel to which Douglas–Peucker simplifies other
    /// lines (the arcs were made in 1° steps and simplified so before). The bench's 10k flows at
    /// zoom 0.43 draw 222k vertices (world copies included, counted in the SVG) at a fifth of a
    /// pixel, 289k at a tenth, 197k before from the 1° steps.
    static let greatCircleTolerance = 0.2

    /// - Parameter paint: per shape, how it is drawn (as a polygon: closed rings, cut edges
    ///   unstroked; as a line: open parts), or nil to leave it out.
    /// - Parameter keepsFeatures: each batch lists the feature of each of its paths (`ShapeBatch.pathFeatures`).
    ///
    /// Many shapes are laid out in parts on the threads (10k flows: a fifth of the run's
    /// instructions cutting and projecting arcs); the parts' batches are then joined as one pass
    /// in order would have made them, so the batches are the same at any thread count.
    static func batches(for shapes: ShapeSet, viewport v: Viewport, strokeMargin: Double, simplify: Bool = false,
                        keepsFeatures: Bool = false, paint: (Int) -> (ShapeKind, ShapePaint)?) -> [ShapeBatch] {
        let parts = partRanges(shapes.shapeCount, minimum: 1024)
        var made = [[ShapeBatch]](repeating: [], count: parts.count)
        made.withUnsafeMutableBufferPointer { made in
            eachPart(parts) { k in
                made[k] = batches(for: shapes, in: parts[k], viewport: v, strokeMargin: strokeMargin, simplify: simplify,
                                  keepsFeatures: keepsFeatures, paint: paint)
            }
        }
        // A part's first batch continues the last one before it when their paint is the same,
        // as one pass would have gone on filling it; batches left without a path are dropped
        // afterwards, as one pass drops them.
        var out: [ShapeBatch] = []
        for part in made {
            for (j, b) in part.enumerated() {
                if j == 0, let last = out.last, last.kind == b.kind, last.paint == b.paint {
                    out[out.count - 1].append(b)
                } else {
                    out.append(b)
                }
            }
        }
        return out.filter { $0.pathCount > 0 }
    }

    /// The batches of `range`'s shapes, in order, each shape's paths added to the batch before
    /// when it has the same paint; the last batch and the first are kept even without a path (the
    /// caller joins parts and drops those).
    private static func batches(for shapes: ShapeSet, in range: Range<Int>, viewport v: Viewport, strokeMargin: Double,
                                simplify: Bool, keepsFeatures: Bool, paint: (Int) -> (ShapeKind, ShapePaint)?) -> [ShapeBatch] {
        var out: [ShapeBatch] = []
        var current: ShapeBatch?
        let ws = v.worldSize
        let halfW = v.width / 2 / ws, halfH = v.height / 2 / ws
        var wx: [Double] = [], wy: [Double] = []
        var cut: [UInt8] = []
        var ringEnds: [Int] = []
        for s in range {
            guard let (kind, p) = paint(s) else { continue }
            let margin = (strokeMargin + p.strokeWidth) / ws  // strokes reach a little outside their shape
            let viewX0 = v.centerX - halfW - margin, viewX1 = v.centerX + halfW + margin
            let viewY0 = v.centerY - halfH - margin, viewY1 = v.centerY + halfH + margin
            if let boxes = shapes.boxes {
                // The shape's box (`ShapeSet.boxes`), widened by far more than any rounding
                // between degrees and world units: a shape it leaves out is one the exact test
                // below would leave out, unprojected. (Same bytes, with or without boxes.)
                let slack = 1e-9
                let minY = WebMercator.y(lat: boxes[4 * s + 3]) - slack, maxY = WebMercator.y(lat: boxes[4 * s + 2]) + slack
                let minX = WebMercator.x(lon: boxes[4 * s]) - slack, maxX = WebMercator.x(lon: boxes[4 * s + 1]) + slack
                guard maxY >= viewY0, minY <= viewY1,
                      (viewX0 - maxX).rounded(.up) <= (viewX1 - minX).rounded(.down) else { continue }
            }
            // Project and unwrap every ring of the shape; track its bounding box.
            wx.removeAll(keepingCapacity: true)
            wy.removeAll(keepingCapacity: true)
            cut.removeAll(keepingCapacity: true)
            ringEnds.removeAll(keepingCapacity: true)
            let isPolygon = kind == .polygon
            let arcs = shapes.isGreatCircle(s) && !isPolygon
            var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
            for r in shapes.rings(of: s) {
                let start = wx.count
                if arcs {
                    // Great-circle arcs cut for this view: no vertex to simplify away afterwards.
                    shapes.forEachGreatCircleVertex(ofRing: r, tolerance: greatCircleTolerance / ws) { x, y in
                        wx.append(x); wy.append(y)
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                    ringEnds.append(wx.count)
                    continue
                }
                shapes.forEachUnwrappedVertex(ofRing: r) { x, y, q in
                    wx.append(x); wy.append(y)
                    if isPolygon { cut.append(cutSide(lon: shapes.coords[2 * q], lat: shapes.coords[2 * q + 1])) }
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                }
                if isPolygon, wx.count - start >= 3 { closeAroundPole(from: start, &wx, &wy, &cut, &minY, &maxY) }
                ringEnds.append(wx.count)
            }
            guard maxY >= viewY0, minY <= viewY1, !wx.isEmpty else { continue }
            let kLo = Int((viewX0 - maxX).rounded(.up)), kHi = Int((viewX1 - minX).rounded(.down))
            guard kLo <= kHi else { continue }
            if let c = current, c.kind != kind || c.paint != p {
                out.append(c)
                current = nil
            }
            if current == nil {
                current = ShapeBatch(kind: kind, paint: p)
                if keepsFeatures { current!.pathFeatures = [] }
            }
            let view = (x0: -(strokeMargin + p.strokeWidth), y0: -(strokeMargin + p.strokeWidth),
                        x1: v.width + strokeMargin + p.strokeWidth, y1: v.height + strokeMargin + p.strokeWidth)
            for k in kLo...kHi {
                let offset = Double(k) - v.centerX
                let paths = current!.pathCount
                emit(&current!, ringEnds: ringEnds, offset: offset, ws: ws, v: v, view: view, wx: wx, wy: wy,
                     cut: isPolygon ? cut : [], closed: isPolygon, simplify: simplify && !arcs)
                if keepsFeatures && current!.pathCount > paths { current!.pathFeatures!.append(shapes.feature[s]) }
            }
        }
        if let c = current { out.append(c) }
        return out
    }

    /// A ring that goes once round the world (Antarctica's: unwrapped, it ends a whole world
    /// east or west of where it started) encloses a pole: it is closed along the map's edge at
    /// that pole (the south pole when the ring lies mostly in the south), by two vertices on the
    /// edge marked as a cut, so they are not stroked. Without it the ring closed along its last
    /// edge: Natural Earth's 1:110m Antarctica went down to 84.7°S only, over a strip of sea
    /// with an outline along the bottom of a world map.
    static func closeAroundPole(from start: Int, _ wx: inout [Double], _ wy: inout [Double], _ cut: inout [UInt8],
                                _ minY: inout Double, _ maxY: inout Double) {
        let n = wx.count - start
        guard abs(wx[wx.count - 1] - wx[start]) > 0.5 else { return }
        var meanY = 0.0
        for k in start..<wx.count { meanY += wy[k] }
        meanY /= Double(n)
        let south = meanY > 0.5
        let edgeY = south ? 1.0 : 0.0, side: UInt8 = south ? 8 : 4
        let lastX = wx[wx.count - 1], lastCut = cut[cut.count - 1], firstX = wx[start], firstCut = cut[start]
        wx.append(lastX); wy.append(edgeY); cut.append(side | (lastCut & 3))
        wx.append(firstX); wy.append(edgeY); cut.append(side | (firstCut & 3))
        minY = min(minY, edgeY); maxY = max(maxY, edgeY)
    }

    /// Which sides of the view a pixel lies beyond: 1 left, 2 right, 4 above, 8 below.
    @inline(__always)
    private static func outcode(_ x: Double, _ y: Double, _ view: (x0: Double, y0: Double, x1: Double, y1: Double)) -> UInt8 {
        var c: UInt8 = 0
        if x < view.x0 { c |= 1 } else if x > view.x1 { c |= 2 }
        if y < view.y0 { c |= 4 } else if y > view.y1 { c |= 8 }
        return c
    }

    /// Douglas–Peucker to a quarter pixel over the ring just emitted (from pair `before / 2`),
    /// keeping its ends and every vertex that starts a cut edge. Iterative with a stack.
    /// Why by hand: the stroke's cost follows the vertices, and a GPS track of a million fixes
    /// seen whole is mostly vertices closer to the line through their neighbours than Cairo's
    /// anti-aliasing can show.
    /// - Complexity: O(n log n) for most lines, O(n²) at worst (a spiral of decreasing steps).
    static func simplify(_ b: inout ShapeBatch, from before: Int, unstrokedFrom u0: Int) {
        let first = before / 2, n = b.coords.count / 2 - first
        let tolerance2 = 0.25 * 0.25
        var keep = [Bool](repeating: false, count: n)
        keep[0] = true; keep[n - 1] = true
        var cutStarts = Set<Int>()
        for k in u0..<b.unstroked.count { cutStarts.insert(b.unstroked[k] - first); cutStarts.insert(b.unstroked[k] - first + 1) }
        for k in cutStarts where k >= 0 && k < n { keep[k] = true }
        b.coords.withUnsafeBufferPointer { c in
            var stack: [(Int, Int)] = [(0, n - 1)]
            while let (i, j) = stack.popLast() {
                guard j > i + 1 else { continue }
                let ax = c[2 * (first + i)], ay = c[2 * (first + i) + 1]
                let dx = c[2 * (first + j)] - ax, dy = c[2 * (first + j) + 1] - ay
                let len2 = dx * dx + dy * dy
                var worst = -1.0, at = -1
                for k in (i + 1)..<j {
                    let px = c[2 * (first + k)] - ax, py = c[2 * (first + k) + 1] - ay
                    var d2: Double
                    if len2 == 0 {
                        d2 = px * px + py * py
                    } else {
                        let t = min(max((px * dx + py * dy) / len2, 0), 1)
                        let ex = px - t * dx, ey = py - t * dy
                        d2 = ex * ex + ey * ey
                    }
                    if keep[k] { d2 = .infinity }
                    if d2 > worst { worst = d2; at = k }
                }
                if worst > tolerance2 {
                    keep[at] = true
                    stack.append((i, at)); stack.append((at, j))
                }
            }
        }
        // Compact the ring; cut edges re-indexed to the kept vertices.
        var newIndex = [Int](repeating: -1, count: n)
        var w = 0
        for k in 0..<n where keep[k] {
            newIndex[k] = w
            b.coords[2 * (first + w)] = b.coords[2 * (first + k)]
            b.coords[2 * (first + w) + 1] = b.coords[2 * (first + k) + 1]
            w += 1
        }
        b.coords.removeSubrange((2 * (first + w))...)
        var kept: [Int] = []
        for k in u0..<b.unstroked.count {
            let p = b.unstroked[k] - first
            if p >= 0, p + 1 < n, newIndex[p] >= 0, newIndex[p + 1] == newIndex[p] + 1 { kept.append(first + newIndex[p]) }
        }
        b.unstroked.replaceSubrange(u0..., with: kept)
    }

    private static func emit(_ b: inout ShapeBatch, ringEnds: [Int], offset: Double, ws: Double, v: Viewport,
                             view: (x0: Double, y0: Double, x1: Double, y1: Double),
                             wx: [Double], wy: [Double], cut: [UInt8], closed: Bool, simplify: Bool) {
        let hw = v.width / 2, hh = v.height / 2
        // (Two vertices, as the basemap always kept: a polygon ring that small fills nothing.)
        let minVertices = 2
        var start = 0
        for end in ringEnds {
            var lastX = Double.nan, lastY = Double.nan
            var lastCut: UInt8 = 0, lastCode: UInt8 = 0
            let before = b.coords.count, unstrokedBefore = b.unstroked.count
            for i in start..<end {
                let px = (wx[i] + offset) * ws + hw
                let py = (wy[i] - v.centerY) * ws + hh
                let onCut = !cut.isEmpty && cut[i] != 0
                // Vertices on a cut are kept, so the cut's edges stay recognisable.
                if abs(px - lastX) < 0.25 && abs(py - lastY) < 0.25 && i != end - 1 && !onCut { continue }
                let code = outcode(px, py, view)
                if code != 0, i != start, i != end - 1, !onCut, b.coords.count > before {
                    // Outside on a side shared by the vertex kept before and the next one: the
                    // path from one to the other stays beyond that side without it.
                    let nx = (wx[i + 1] + offset) * ws + hw, ny = (wy[i + 1] - v.centerY) * ws + hh
                    if code & lastCode & outcode(nx, ny, view) != 0 { continue }
                }
                if !cut.isEmpty {
                    // The edge from the previous kept vertex to this one lies on one cut line.
                    if b.coords.count > before && lastCut & cut[i] != 0 { b.unstroked.append(b.coords.count / 2 - 1) }
                    lastCut = cut[i]
                }
                b.coords.append(px); b.coords.append(py)
                lastX = px; lastY = py; lastCode = code
            }
            start = end
            if simplify && b.coords.count - before > 2 * 8 { Self.simplify(&b, from: before, unstrokedFrom: unstrokedBefore) }
            if b.coords.count - before >= 2 * minVertices { b.closeRing() } else {
                b.coords.removeSubrange(before...)
                b.unstroked.removeSubrange(unstrokedBefore...)
            }
        }
        if b.ringStart.count - 1 > b.pathRingStart.last! { b.closePath() }
    }
}

/// A layer's paint bound to a feature table: per row, the resolved `ShapePaint` (nil when the
/// filter refuses the feature or nothing of it would show). Constant paint is resolved once.
struct LayerPaint {
    let layer: StyleLayer
    let zoom: Double
    let filter: BoundExpression?
    let fillColor, fillOpacity, outlineWidth, lineColor, lineWidth, lineOpacity, lineBlur: BoundExpression
    let outlineColor, fillPattern, linePattern: BoundExpression?
    /// Simplestyle columns (`fill`, `fill-opacity`, `stroke`, `stroke-width`, `stroke-opacity`), when
    /// the layer reads them and the table has them.
    let simple: [Int?]
    let properties: PropertyTable
    /// The paint when it depends on no feature.
    private var constant: ShapePaint??

    init(layer: StyleLayer, properties: PropertyTable, zoom: Double) {
        self.layer = layer
        self.zoom = zoom
        self.properties = properties
        filter = layer.filter?.bind(to: properties)
        fillColor = layer.fillColor.bind(to: properties)
        fillOpacity = layer.fillOpacity.bind(to: properties)
        outlineColor = layer.fillOutlineColor?.bind(to: properties)
        fillPattern = layer.sprite == nil ? nil : layer.fillPattern?.bind(to: properties)
        linePattern = layer.sprite == nil ? nil : layer.linePattern?.bind(to: properties)
        outlineWidth = layer.fillOutlineWidth.bind(to: properties)
        lineColor = layer.lineColor.bind(to: properties)
        lineWidth = layer.lineWidth.bind(to: properties)
        lineOpacity = layer.lineOpacity.bind(to: properties)
        lineBlur = layer.lineBlur.bind(to: properties)
        let keys = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity"]
        simple = layer.simplestyle ? keys.map { properties.columnIndex($0) } : keys.map { _ in nil }
        let featureConstant = simple.allSatisfy { $0 == nil }
            && [layer.filter, layer.fillColor, layer.fillOpacity, layer.fillOutlineColor, layer.fillOutlineWidth, layer.fillPattern, layer.linePattern,
                layer.lineColor, layer.lineWidth, layer.lineOpacity, layer.lineBlur].allSatisfy { $0?.isFeatureConstant ?? true }
        if featureConstant { constant = .some(resolve(row: nil)) }
    }

    func paint(row: Int?) -> ShapePaint? {
        if let c = constant { return c }
        return resolve(row: row)
    }

    private func simpleValue(_ k: Int, row: Int?) -> PropertyValue? {
        guard let c = simple[k], let row else { return nil }
        let v = properties.value(column: c, row: row)
        switch v {
        case .missing, .null: return nil
        default: return v
        }
    }

    private func simpleColor(_ k: Int, row: Int?) -> RGBA? {
        if case .string(let s)? = simpleValue(k, row: row) { return RGBA.parse(s) }
        return nil
    }

    private func simpleNumber(_ k: Int, row: Int?) -> Double? {
        switch simpleValue(k, row: row) {
        case .number(let d)?: return d.isFinite ? d : nil
        case .string(let s)?: return Double(s).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }

    private func resolve(row: Int?) -> ShapePaint? {
        if let f = filter, !f.evaluate(row: row, zoom: zoom).truthy { return nil }
        func number(_ e: BoundExpression, _ fallback: Double, _ range: ClosedRange<Double>) -> Double {
            let d = e.evaluate(row: row, zoom: zoom).numberValue ?? fallback
            return d.isFinite ? min(max(d, range.lowerBound), range.upperBound) : fallback
        }
        func color(_ e: BoundExpression?) -> RGBA? { e?.evaluate(row: row, zoom: zoom).colorValue }
        switch layer.type {
        case .fill:
            var fill = simpleColor(0, row: row) ?? color(fillColor) ?? .clear
            let opacity = min(max(simpleNumber(1, row: row) ?? number(fillOpacity, 1, 0...1), 0), 1)
            fill.a *= opacity
            var stroke = simpleColor(2, row: row) ?? color(outlineColor) ?? .clear
            stroke.a *= min(max(simpleNumber(4, row: row) ?? 1, 0), 1)
            let width = min(max(simpleNumber(3, row: row) ?? number(outlineWidth, 1, 0...50), 0), 50)
            // fill-pattern: the image in place of the colour (a name the sprite lacks: no fill, as MapLibre).
            var pattern: SpriteImage?
            if let fillPattern {
                pattern = fillPattern.evaluate(row: row, zoom: zoom).stringValue.flatMap { layer.sprite?.icons[$0] }
                fill = RGBA(0, 0, 0, pattern == nil ? 0 : opacity)
            }
            guard fill.a > 0 || (stroke.a > 0 && width > 0) else { return nil }
            var p = ShapePaint(fill: fill, stroke: stroke, strokeWidth: stroke.a > 0 ? width : 0, cap: .round, join: .round)
            p.pattern = pattern
            return p
        case .line:
            var stroke = simpleColor(2, row: row) ?? color(lineColor) ?? .clear
            stroke.a *= min(max(simpleNumber(4, row: row) ?? number(lineOpacity, 1, 0...1), 0), 1)
            let width = min(max(simpleNumber(3, row: row) ?? number(lineWidth, 1, 0...100), 0), 100)
            guard stroke.a > 0, width > 0 else { return nil }
            // MapLibre's dashes are in line widths.
            let dash = layer.lineDasharray.map { $0.map { $0 * width } } ?? []
            var p = ShapePaint(fill: .clear, stroke: stroke, strokeWidth: width, dash: dash, cap: layer.lineCap, join: layer.lineJoin)
            p.blur = number(lineBlur, 0, 0...100)
            if let linePattern {
                // line-pattern: the image along the line in place of the colour and dashes (a name
                // the sprite lacks: no line, as MapLibre), the line's opacity its alpha.
                guard let image = linePattern.evaluate(row: row, zoom: zoom).stringValue.flatMap({ layer.sprite?.icons[$0] }) else { return nil }
                p.pattern = image
                p.stroke = RGBA(0, 0, 0, min(max(number(lineOpacity, 1, 0...1), 0), 1))
                p.dash = []
                p.blur = 0
            }
            return p
        case .background:
            return nil
        }
    }
}