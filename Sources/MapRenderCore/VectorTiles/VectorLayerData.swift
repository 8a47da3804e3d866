import Foundation

/// The features of one source layer (`water`, `boundary`, ...) of the tiles a map uses, in
/// lon/lat, clipped to their tiles: one feature table, and the shapes that index into it.
///
/// Polygons are clipped to their tile's square (so the pieces of a country in four tiles fill as
/// one even-odd path without overlap). `lines` holds the line features and also every polygon's
/// rings as open lines clipped to the tile (rows with `$type` "Polygon"): a line layer over polygons
/// strokes those, as MapLibre's does, and so does `fill-outline-color` (stroking the clipped polygon
/// would draw the tile edges, which MapLibre's stencil hides). Lines are clipped to the tile; the clipping buffer tippecanoe and
/// others add around each tile is cut off, as MapLibre's stencil cuts it. Points are kept only
/// inside their tile (a label in the buffer is the neighbour tile's).
///
/// Every feature has `$type` ("Point", "LineString", "Polygon") and, when the tile gives one,
/// `$id` among its properties: legacy filters and `geometry-type`/`id` read them.
public struct VectorLayerData: Sendable {
    public var properties = PropertyTable()
    public var polygons = ShapeSet()
    public var lines = ShapeSet()
    /// lon, lat pairs.
    public var pointCoords: [Double] = []
    /// Each point's row of `properties`.
    public var pointRows: [Int32] = []

    public init() {}

    public var pointCount: Int { pointRows.count }
    public var featureCount: Int { properties.rowCount }

    /// Appends another tile's features of this layer (columns merged by name).
    public mutating func append(contentsOf o: VectorLayerData) {
        let rowBase = Int32(properties.rowCount)
        let map = o.properties.names.map { properties.addColumn($0) }
        var row: [(Int, PropertyValue)] = []
        for r in 0..<o.properties.rowCount {
            row.removeAll(keepingCapacity: true)
            for (c, to) in map.enumerated() {
                let v = o.properties.value(column: c, row: r)
                if case .missing = v { continue }
                row.append((to, v))
            }
            properties.appendRow(row)
        }
        Self.append(o.polygons, to: &polygons, rowBase: rowBase)
        Self.append(o.lines, to: &lines, rowBase: rowBase)
        pointCoords += o.pointCoords
        pointRows += o.pointRows.map { $0 + rowBase }
    }

    private static func append(_ o: ShapeSet, to s: inout ShapeSet, rowBase: Int32) {
        let vertexBase = s.vertexCount, ringBase = s.ringStart.count - 1
        s.coords += o.coords
        s.ringStart += o.ringStart.dropFirst().map { $0 + vertexBase }
        s.shapeRingStart += o.shapeRingStart.dropFirst().map { $0 + ringBase }
        s.kinds += o.kinds
        s.feature += o.feature.map { $0 + Int(rowBase) }
        s.row += o.row.map { $0 + rowBase }
    }

    /// The shape sets with the feature table attached (call once decoding is done).
    public func finished() -> VectorLayerData {
        var d = self
        d.polygons.properties = properties
        d.lines.properties = properties
        return d
    }
}

/// Tile coordinates → lon/lat for one tile, with MapLibre's ring classification and the clipping.
struct TileGeometry {
    let z: Int, x: Double, y: Double, n: Double, extent: Double

    init(tile: TileID, extent: Double) {
        z = tile.z; x = Double(tile.x); y = Double(tile.y); n = Double(1 << min(tile.z, 30)); self.extent = extent
    }

    @inline(__always)
    func lonLat(_ px: Double, _ py: Double) -> (Double, Double) {
        let wx = (x + px / extent) / n, wy = (y + py / extent) / n
        return (wx * 360 - 180, WebMercator.lat(y: wy))
    }

    func project(_ ring: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: ring.count)
        for k in stride(from: 0, to: ring.count, by: 2) {
            let (lon, lat) = lonLat(ring[k], ring[k + 1])
            out[k] = lon; out[k + 1] = lat
        }
        return out
    }

    func addPoints(_ parts: [[Double]], row: Int, into d: inout VectorLayerData) {
        for part in parts {
            for k in stride(from: 0, to: part.count, by: 2) {
                let px = part[k], py = part[k + 1]
                guard px >= 0, px < extent, py >= 0, py < extent else { continue }
                let (lon, lat) = lonLat(px, py)
                d.pointCoords.append(lon); d.pointCoords.append(lat)
                d.pointRows.append(Int32(row))
            }
        }
    }

    func addLines(_ parts: [[Double]], row: Int, into d: inout VectorLayerData) {
        var runs: [[Double]] = []
        for part in parts { runs += Self.clipLine(part, extent) }
        guard !runs.isEmpty else { return }
        d.lines.add(kind: .line, rings: runs.map(project), feature: row, row: row)
    }

    func addPolygons(_ rings: [[Double]], row: Int, into d: inout VectorLayerData) {
        for polygon in Self.classifyRings(rings) {
            var clipped: [[Double]] = []
            for (k, ring) in polygon.enumerated() {
                let c = Self.clipRing(ring, extent)
                if c.count < 6 { if k == 0 { break } else { continue } }
                clipped.append(c)
            }
            guard !clipped.isEmpty else { continue }
            d.polygons.add(kind: .polygon, rings: clipped.map(project), feature: row, row: row)
            var lines: [[Double]] = []
            for ring in polygon {
                var closed = ring
                if ring.count >= 2, ring[0] != ring[ring.count - 2] || ring[1] != ring[ring.count - 1] {
                    closed.append(ring[0]); closed.append(ring[1])
                }
                lines += Self.clipLine(closed, extent)
            }
            if !lines.isEmpty { d.lines.add(kind: .line, rings: lines.map(project), feature: row, row: row) }
        }
    }

    /// Twice the signed area of a ring in tile coordinates (y down), as MapLibre computes it:
    /// positive for a clockwise ring on screen (an outer ring by the spec).
    static func signedArea(_ r: [Double]) -> Double {
        var sum = 0.0
        let n = r.count / 2
        guard n >= 3 else { return 0 }
        var j = n - 1
        for i in 0..<n {
            sum += (r[2 * i] - r[2 * j]) * (r[2 * j + 1] + r[2 * i + 1])
            j = i
        }
        return sum
    }

    /// Rings grouped into polygons as MapLibre's `classifyRings` does: the first ring of non-zero
    /// area sets which winding is "outer"; each ring of that winding starts a polygon, each of the
    /// other is a hole of the polygon before it. So a tile whose writer wound every ring the wrong
    /// way round still draws its polygons with their holes; rings of zero area are dropped.
    static func classifyRings(_ rings: [[Double]]) -> [[[Double]]] {
        var out: [[[Double]]] = []
        var current: [[Double]] = []
        var outerNegative: Bool?
        for ring in rings {
            let area = signedArea(ring)
            if area == 0 { continue }
            if outerNegative == nil { outerNegative = area < 0 }
            if outerNegative == (area < 0) {
                if !current.isEmpty { out.append(current) }
                current = [ring]
            } else if !current.isEmpty {
                current.append(ring)
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// Sutherland–Hodgman against the square [0, e]²: the part of a ring inside the tile.
    static func clipRing(_ ring: [Double], _ e: Double) -> [Double] {
        var pts = ring
        // Drop the closing duplicate; the clipped ring is closed by its kind.
        if pts.count >= 4, pts[0] == pts[pts.count - 2], pts[1] == pts[pts.count - 1] { pts.removeLast(2) }
        var inside = true
        for k in stride(from: 0, to: pts.count, by: 2) where pts[k] < 0 || pts[k] > e || pts[k + 1] < 0 || pts[k + 1] > e {
            inside = false; break
        }
        if inside { return pts }
        for edge in 0..<4 {
            guard pts.count >= 6 else { return [] }
            var out: [Double] = []
            out.reserveCapacity(pts.count + 8)
            func value(_ i: Int) -> Double {   // signed distance inside the edge
                switch edge {
                case 0: return pts[i]           // x >= 0
                case 1: return e - pts[i]       // x <= e
                case 2: return pts[i + 1]       // y >= 0
                default: return e - pts[i + 1]  // y <= e
                }
            }
            let n = pts.count / 2
            var pi = 2 * (n - 1)
            var pv = value(pi)
            for k in 0..<n {
                let ci = 2 * k, cv = value(ci)
                if (cv >= 0) != (pv >= 0) {
                    let t = pv / (pv - cv)
                    out.append(pts[pi] + (pts[ci] - pts[pi]) * t)
                    out.append(pts[pi + 1] + (pts[ci + 1] - pts[pi + 1]) * t)
                }
                if cv >= 0 { out.append(pts[ci]); out.append(pts[ci + 1]) }
                pi = ci; pv = cv
            }
            pts = out
        }
        return pts.count >= 6 ? pts : []
    }

    /// The runs of a polyline inside the square [0, e]² (Liang–Barsky per segment).
    static func clipLine(_ line: [Double], _ e: Double) -> [[Double]] {
        var runs: [[Double]] = []
        var run: [Double] = []
        let n = line.count / 2
        guard n >= 2 else { return [] }
        for k in 0..<(n - 1) {
            let x0 = line[2 * k], y0 = line[2 * k + 1], x1 = line[2 * k + 2], y1 = line[2 * k + 3]
            let dx = x1 - x0, dy = y1 - y0
            var t0 = 0.0, t1 = 1.0
            var visible = true
            for (p, q) in [(-dx, x0), (dx, e - x0), (-dy, y0), (dy, e - y0)] {
                if p == 0 {
                    if q < 0 { visible = false; break }
                } else {
                    let t = q / p
                    if p < 0 { if t > t1 { visible = false; break }; t0 = max(t0, t) } else { if t < t0 { visible = false; break }; t1 = min(t1, t) }
                }
            }
            if !visible {
                if run.count >= 4 { runs.append(run) }
                run = []
                continue
            }
            let ax = x0 + dx * t0, ay = y0 + dy * t0, bx = x0 + dx * t1, by = y0 + dy * t1
            if run.isEmpty || t0 > 0 {
                if run.count >= 4 { runs.append(run) }
                run = [ax, ay]
            }
            run.append(bx); run.append(by)
            if t1 < 1 { runs.append(run); run = [] }
        }
        if run.count >= 4 { runs.append(run) }
        return runs
    }
}
