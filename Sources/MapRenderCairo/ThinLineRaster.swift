import CCairo
import MapRenderCore

/// Thin solid line batches of raster output drawn straight into the image's pixels (Cairo's
/// ARGB32 premultiplied buffer), instead of `cairo_stroke`.
///
/// Why by hand: 10k translucent great-circle arcs at 1024x768 (the bench's flows, issue #48, target
/// 0.3 s) took 0.82 s, about two thirds of it in Cairo stroking them: each arc is a batch of its
/// own width, and Cairo pays per stroke for a stroker, a tessellated polygon, a scan-converted
/// mask and its compositing, even for a path one or two pixels wide. Here a segment costs the
/// pixels it covers: the flows' render stage went from 1073 to 396 ms on a loaded 2-core host
/// (whole run 1.37 -> 0.74 s; 0.60 s in `scripts/bench`), 2.98 G instructions in all (callgrind),
/// of which the segments 1.17 G and the compositing 0.25 G. Since then (arcs cut for the view,
/// bands balanced, the per-row span without divisions or libm calls) the flows take 1.94 G in
/// all, the segments 0.83 G and the compositing 0.25 G.
///
/// What it draws (`applies`): line batches of one solid or translucent colour, no dash, pattern
/// or blur, at most `maxWidth` device px wide, under a scale-and-translate transformation;
/// round joins, and bevel or miter joins whose every turn is gentle enough that the join lies
/// within `joinTolerance` px of a round one (a great-circle arc turns by a fraction of a degree
/// per vertex); butt, round or square caps. Anything else returns false and Cairo strokes it.
///
/// How: a pixel's coverage by a segment is the overlap of the pixel's span across the line with
/// the line's width at the pixel centre's distance from the segment (exact for an axis-aligned
/// line, within a few levels of Cairo's area coverage for a diagonal one), round at the ends
/// that meet a join or a round cap, cut at a butt or square cap. A batch is one union, as Cairo
/// strokes it: each pixel keeps the most any segment of the batch covers it (a translucent
/// line is not blended twice where it meets itself), and the touched pixels are then
/// composited once with OVER, as pixman composites a solid source through a coverage mask, and
/// reset, so a batch costs its pixels and no clear of the image.
///
/// Deterministic: a pixel's value depends on the segments over it in device coordinates of the
/// whole image, not on the order or the band (`rows`) it is drawn in, so the bytes are the same
/// at any thread count.
final class ThinLineRaster {
    /// The widest line drawn here, device px: the distance coverage is close to Cairo's for thin
    /// lines; wider lines' joins and ends are left to Cairo.
    static let maxWidth = 3.0
    /// How far, device px, a bevel or miter join may lie from the round one drawn instead.
    static let joinTolerance = 0.1

    private let pixels: UnsafeMutablePointer<UInt8>
    private let width: Int, stride: Int
    /// The whole image's height (what `applies` decides must not depend on the band).
    private let height: Int
    /// The rows of the image drawn here (a band, or all of them).
    private let rows: Range<Int>
    /// User space to device pixels of the whole image: x' = x * scale + dx, y' = y * scale + dy.
    private let scale: Double, dx: Double, dy: Double
    /// Per pixel of `rows`, the batch's coverage so far (0 outside it).
    private var coverage: [UInt8] = []
    /// Indices into `coverage` of the pixels the batch touched, `touchedCount` of them: room
    /// for every pixel of the rows (each is listed once a batch), so that listing one is a
    /// store, without an array's uniqueness and capacity checks (3 % of the flows' instructions).
    private var touched: UnsafeMutablePointer<Int32>?
    private var touchedCount = 0

    deinit { touched?.deallocate() }

    /// For the whole image: nil unless `cr` draws on a `PlainImage` under a uniform scale and
    /// translation.
    convenience init?(root cr: OpaquePointer) {
        guard let image = PlainImage(cr) else { return nil }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        self.init(pixels: image.pixels, width: image.width, stride: image.stride, height: image.height,
                  rows: 0..<image.height, matrix: m)
    }

    /// For `rows` of an image at `pixels` (a band of `CairoRenderer.drawInBands`), `matrix`
    /// being the whole image's; nil unless it is a uniform scale and translation.
    init?(pixels: UnsafeMutablePointer<UInt8>, width: Int, stride: Int, height: Int, rows: Range<Int>, matrix m: cairo_matrix_t) {
        guard m.xy == 0, m.yx == 0, m.xx == m.yy, m.xx > 0, m.xx.isFinite, m.x0.isFinite, m.y0.isFinite,
              width > 0, !rows.isEmpty, width * rows.count <= Int(Int32.max),
              stride == 4 * width else { return nil }   // (ARGB32's: a coverage index is a pixel's)
        self.pixels = pixels; self.width = width; self.stride = stride; self.height = height; self.rows = rows
        scale = m.xx; dx = m.x0; dy = m.y0
    }

    /// Whether `b` is drawn here (see the type's comment).
    func applies(_ b: ShapeBatch) -> Bool {
        let p = b.paint, w = b.strokeWidth * scale
        guard b.kind == .line, p.pattern == nil, p.dash.isEmpty, p.blur == 0, b.stroke.a > 0,
              w > 0, w <= Self.maxWidth else { return false }
        return p.join == .round || joinsAreGentle(b, halfWidth: w / 2)
    }

    /// Draws `b` into the pixels, clipped to `clip` (user space; nil: the image), when it
    /// `applies` (`known`: already decided for it, as `rowsReached` does); false, and nothing
    /// drawn, otherwise. `cr` is the context drawing these rows: its surface is flushed before
    /// and marked dirty after.
    func draw(_ b: ShapeBatch, on cr: OpaquePointer, clip: Rect?, applies known: Bool? = nil) -> Bool {
        guard known ?? applies(b) else { return false }
        let target = cairo_get_target(cr)!
        cairo_surface_flush(target)
        rasterize(b, clip: clip)
        composite(b.stroke)
        cairo_surface_mark_dirty(target)
        return true
    }

    /// The image rows `b` can cover when it `applies` (those within its half width and half a
    /// pixel of a vertex's row, and a square cap's reach more), else nil: a band of other rows
    /// leaves it out without visiting its segments.
    func rowsReached(_ b: ShapeBatch) -> Range<Int>? {
        guard applies(b) else { return nil }
        var lo = Double.infinity, hi = -Double.infinity
        b.coords.withUnsafeBufferPointer { c in
            for p in Swift.stride(from: 1, to: c.count, by: 2) { lo = min(lo, c[p]); hi = max(hi, c[p]) }
        }
        guard lo <= hi else { return 0..<0 }
        let reach = b.strokeWidth * scale + 2   // r + 0.5, and r more for a square cap, with a pixel to spare
        let top = lo * scale + dy - reach, bottom = hi * scale + dy + reach
        guard top.isFinite, bottom.isFinite else { return 0..<height }
        let from = Int(min(max(top.rounded(.down), 0), Double(height))), to = Int(min(max(bottom.rounded(.up), 0), Double(height)))
        return from..<max(from, to)
    }

    /// True when every turn of every ring of `b` has a bevel and miter join within
    /// `joinTolerance` of a round one: r (1 / cos(θ/2) - 1) ≤ tolerance for a turn θ (the miter
    /// reaches r / cos(θ/2) from the vertex, the bevel r cos(θ/2), the round join r), or lies
    /// outside the image by more than its join reaches (a miter r / cos(θ/2), Cairo's miter
    /// limit, 10, bevels one longer than 10 r). Layout drops a line's vertices beyond the view,
    /// which leaves sharp turns a few px outside it: 250 of the 10k flows' arcs, which Cairo
    /// stroked without this.
    private func joinsAreGentle(_ b: ShapeBatch, halfWidth r: Double) -> Bool {
        let k = 1 / ((1 + Self.joinTolerance / r) * (1 + Self.joinTolerance / r))  // least cos²(θ/2)
        return b.coords.withUnsafeBufferPointer { c in
            for ring in 0..<(b.ringStart.count - 1) {
                var hasLast = false, lx = 0.0, ly = 0.0
                for p in b.ringStart[ring]..<max(b.ringStart[ring], b.ringStart[ring + 1] - 1) {
                    let ux = c[2 * p + 2] - c[2 * p], uy = c[2 * p + 3] - c[2 * p + 1]
                    let len = (ux * ux + uy * uy).squareRoot()
                    guard len > 0 else { continue }
                    guard len.isFinite else { return false }
                    let nx = ux / len, ny = uy / len
                    // cos²(θ/2) = (1 + cos θ) / 2
                    if hasLast && (1 + nx * lx + ny * ly) / 2 < k {
                        let x = c[2 * p] * scale + dx, y = c[2 * p + 1] * scale + dy
                        // The join reaches r / cos(θ/2) from the vertex, at most 10 r (then bevelled).
                        let cosHalf = max((1 + nx * lx + ny * ly) / 2, 0).squareRoot()
                        let far = r * (cosHalf > 0.1 ? 1 / cosHalf : 10) + 1
                        guard x < -far || x > Double(width) + far || y < -far || y > Double(height) + far else { return false }
                    }
                    hasLast = true; lx = nx; ly = ny
                }
            }
            return true
        }
    }

    /// Each ring's segments into `coverage`, clipped to the rows, the image's columns and `clip`.
    private func rasterize(_ b: ShapeBatch, clip: Rect?) {
        if coverage.isEmpty { coverage = [UInt8](repeating: 0, count: width * rows.count) }
        // The clip in device px: the band's rows, the image's columns, the clip rectangle.
        var box = (x0: 0.0, y0: Double(rows.lowerBound), x1: Double(width), y1: Double(rows.upperBound))
        if let c = clip {
            box.x0 = max(box.x0, c.x * scale + dx); box.x1 = min(box.x1, (c.x + c.width) * scale + dx)
            box.y0 = max(box.y0, c.y * scale + dy); box.y1 = min(box.y1, (c.y + c.height) * scale + dy)
        }
        guard box.x0 < box.x1, box.y0 < box.y1 else { return }
        // The clip's whole rows and columns, once a batch rather than once a segment (each a
        // call of libm's floor, ceil or round).
        let frame = Frame(rowLo: max(rows.lowerBound, Int(box.y0.rounded(.down))), rowHi: min(rows.upperBound, Int(box.y1.rounded(.up))),
                          colLo: max(0, Int(box.x0.rounded(.down))), colHi: min(width, Int(box.x1.rounded(.up))),
                          fractional: box.x0 != box.x0.rounded() || box.x1 != box.x1.rounded()
                              || box.y0 != box.y0.rounded() || box.y1 != box.y1.rounded())
        let r = b.strokeWidth * scale / 2
        let cap = b.paint.cap
        if touched == nil { touched = UnsafeMutablePointer<Int32>.allocate(capacity: width * rows.count) }
        let list = touched!
        // The count as a local, passed inout: the stored property in the pixel loop paid a
        // dynamic exclusivity check per pixel (8% of the flows' instructions).
        var count = touchedCount
        defer { touchedCount = count }
        b.coords.withUnsafeBufferPointer { c in
            coverage.withUnsafeMutableBufferPointer { cov in
                for ring in 0..<(b.ringStart.count - 1) {
                    let start = b.ringStart[ring], end = b.ringStart[ring + 1]
                    guard end - start >= 2 else { continue }   // a lone move-to draws nothing
                    // The ring's first and last segments of non-zero length carry its caps.
                    var first = -1, last = -1
                    for p in start..<(end - 1) where c[2 * p] != c[2 * p + 2] || c[2 * p + 1] != c[2 * p + 3] {
                        if first < 0 { first = p }
                        last = p
                    }
                    if first < 0 {
                        // All one point: a round cap draws a dot, a square cap a square, butt nothing.
                        guard cap != .butt else { continue }
                        let x = c[2 * start] * scale + dx, y = c[2 * start + 1] * scale + dy
                        segment(x, y, x, y, r: r, flatStart: cap == .square, flatEnd: cap == .square,
                                extendStart: cap == .square, extendEnd: cap == .square, box: box, frame: frame, cov, list, &count)
                        continue
                    }
                    for p in first...last {
                        let ax = c[2 * p] * scale + dx, ay = c[2 * p + 1] * scale + dy
                        let bx = c[2 * p + 2] * scale + dx, by = c[2 * p + 3] * scale + dy
                        guard ax != bx || ay != by else { continue }
                        let isFirst = p == first, isLast = p == last
                        segment(ax, ay, bx, by, r: r,
                                flatStart: isFirst && cap != .round, flatEnd: isLast && cap != .round,
                                extendStart: isFirst && cap == .square, extendEnd: isLast && cap == .square,
                                box: box, frame: frame, cov, list, &count)
                    }
                }
            }
        }
    }

    /// The clip's whole rows and columns in a band (`rasterize`), and whether its edges fall
    /// between pixels.
    struct Frame { let rowLo, rowHi, colLo, colHi: Int; let fractional: Bool }

    /// ⌈v⌉ and ⌊v⌋ for a v well within Int's range, without a call into libm.
    @inline(__always)
    private static func ceilInt(_ v: Double) -> Int { let i = Int(v); return Double(i) < v ? i + 1 : i }
    @inline(__always)
    private static func floorInt(_ v: Double) -> Int { let i = Int(v); return Double(i) > v ? i - 1 : i }

    /// The fraction of a pixel's span [d - 0.5, d + 0.5] across a line that lies within its
    /// half width `r` of the line, for a pixel centre `d` ≥ 0 px from it.
    @inline(__always)
    private static func across(_ d: Double, _ r: Double) -> Double {
        min(max(min(d + 0.5, r) - max(d - 0.5, -r), 0), 1)
    }

    /// One segment's coverage (a capsule of half width `r`: flat at a butt or square cap, then
    /// `extend`ed by r for a square one) kept per pixel as the most of it and what is there.
    /// A zero-length segment (a lone dot) lies along x.
    @inline(__always)
    private func segment(_ ax0: Double, _ ay0: Double, _ bx0: Double, _ by0: Double, r: Double,
                         flatStart: Bool, flatEnd: Bool, extendStart: Bool, extendEnd: Bool,
                         box: (x0: Double, y0: Double, x1: Double, y1: Double), frame: Frame, _ cov: UnsafeMutableBufferPointer<UInt8>,
                         _ touched: UnsafeMutablePointer<Int32>, _ touchedCount: inout Int) {
        guard ax0.isFinite, ay0.isFinite, bx0.isFinite, by0.isFinite else { return }
        var ax = ax0, ay = ay0, bx = bx0, by = by0
        let len0 = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
        let ux = len0 > 0 ? (bx - ax) / len0 : 1, uy = len0 > 0 ? (by - ay) / len0 : 0
        if extendStart { ax -= ux * r; ay -= uy * r }
        if extendEnd { bx += ux * r; by += uy * r }
        let len = len0 + (extendStart ? r : 0) + (extendEnd ? r : 0)
        let reach = r + 0.5   // no coverage from a pixel centre this far from the segment
        let lo = flatStart ? 0 : -Double.infinity, hi = flatEnd ? len : Double.infinity
        let cut = flatStart || flatEnd
        // The rows whose centres lie within reach (centre y + 0.5 in the open interval): beyond
        // it, `across` is 0.
        let top = max(box.y0, min(ay, by) - reach), bottom = min(box.y1, max(ay, by) + reach)
        // (A segment left or right of the clip, as a world copy beyond a letterboxed world,
        // has no row to visit.)
        guard top < bottom, min(ax, bx) - reach < box.x1, max(ax, bx) + reach > box.x0 else { return }
        // (top and bottom lie within the clip: the conversions cannot overflow.)
        let rowLo = max(frame.rowLo, Self.ceilInt(top - 0.5))
        let rowHi = min(frame.rowHi, Self.floorInt(bottom - 0.5) + 1)
        guard rowLo < rowHi else { return }
        let colLo = frame.colLo, colHi = frame.colHi
        let fractionalClip = frame.fractional
        let reach2 = reach * reach
        // Multiplications by the reciprocals rather than four divisions a row.
        let perUy = abs(uy) > 1e-12 ? 1 / uy : 0, perUx = abs(ux) > 1e-12 ? 1 / ux : 0
        for y in rowLo..<rowHi {
            let cy = Double(y) + 0.5
            // The x span of the row's centre line within reach: the two end discs and the band
            // along the segment (each convex, so their hull on the line is an interval).
            var xl = Double.infinity, xh = -Double.infinity
            let da = cy - ay, db = cy - by
            if da * da < reach2 { let h = (reach2 - da * da).squareRoot(); xl = min(xl, ax - h); xh = max(xh, ax + h) }
            if db * db < reach2 { let h = (reach2 - db * db).squareRoot(); xl = min(xl, bx - h); xh = max(xh, bx + h) }
            let yy = cy - ay
            if abs(uy) > 1e-12 {
                // |yy ux - (x - ax) uy| < reach and 0 ≤ (x - ax) ux + yy uy ≤ len
                var pl = (yy * ux - reach) * perUy, ph = (yy * ux + reach) * perUy
                if pl > ph { swap(&pl, &ph) }
                if abs(ux) > 1e-12 {
                    var tl = -yy * uy * perUx, th = (len - yy * uy) * perUx
                    if tl > th { swap(&tl, &th) }
                    pl = max(pl, tl); ph = min(ph, th)
                } else if yy * uy < 0 || yy * uy > len {
                    ph = pl - 1
                }
                if pl <= ph { xl = min(xl, ax + pl); xh = max(xh, ax + ph) }
            } else if abs(yy) < reach {
                xl = min(xl, min(ax, bx)); xh = max(xh, max(ax, bx))
            }
            guard xl <= xh else { continue }
            // The pixels whose centres lie inside the span.
            let xFrom = max(colLo, Self.ceilInt(max(-1, min(Double(width), xl - 0.5))))
            let xTo = min(colHi, Self.floorInt(max(-1, min(Double(width), xh - 0.5))) + 1)
            guard xFrom < xTo else { continue }
            var fy = 1.0
            if fractionalClip { fy = min(max(min(Double(y + 1), box.y1) - max(Double(y), box.y0), 0), 1) }
            let rowBase = (y - rows.lowerBound) * width
            for x in xFrom..<xTo {
                let px = Double(x) + 0.5 - ax, py = yy
                let t = px * ux + py * uy
                var c: Double
                if t < 0 && !flatStart {
                    c = Self.across((px * px + py * py).squareRoot(), r)
                } else if t > len && !flatEnd {
                    let qx = Double(x) + 0.5 - bx, qy = cy - by
                    c = Self.across((qx * qx + qy * qy).squareRoot(), r)
                } else {
                    c = Self.across(abs(py * ux - px * uy), r)
                }
                if cut { c *= min(max(min(t + 0.5, hi) - max(t - 0.5, lo), 0), 1) }
                if fractionalClip {
                    c *= fy * min(max(min(Double(x + 1), box.x1) - max(Double(x), box.x0), 0), 1)
                }
                let v = UInt8(c * 255 + 0.5)
                let i = rowBase + x
                let old = cov[i]
                if v > old {
                    if old == 0 { touched[touchedCount] = Int32(i); touchedCount += 1 }
                    cov[i] = v
                }
            }
        }
    }

    /// The touched pixels composited with `color` through their coverage (OVER, premultiplied,
    /// as pixman composites a solid source through an a8 mask: each product a * b / 255 rounded
    /// as its MUL_UN8, two channels a multiplication), then their coverage reset.
    private func composite(_ color: RGBA) {
        // As Cairo takes a colour: premultiplied, to 16 bits, then to 8 for pixman.
        func channel(_ v: Double) -> UInt64 { UInt64(min(max(v, 0), 1) * 65535 + 0.5) >> 8 }
        let a = min(max(color.a, 0), 1)
        let src = channel(a) << 24 | channel(color.r * a) << 16 | channel(color.g * a) << 8 | channel(color.b * a)
        let srcAG = (src >> 8) & 0xff00ff, srcRB = src & 0xff00ff
        /// Each of the two 8-bit channels in `x` (0x00aa00bb) times `m`, over 255, rounded.
        @inline(__always) func mul2(_ x: UInt64, _ m: UInt64) -> UInt64 {
            let t = x * m + 0x800080
            return ((t + ((t >> 8) & 0xff00ff)) >> 8) & 0xff00ff
        }
        // Coverage index i is pixel i of the rows (stride == 4 width).
        let first = UnsafeMutableRawPointer(pixels + rows.lowerBound * stride).assumingMemoryBound(to: UInt32.self)
        coverage.withUnsafeMutableBufferPointer { cov in
            for i32 in UnsafeBufferPointer(start: touched, count: touchedCount) {
                let i = Int(i32)
                let m = UInt64(cov[i])
                cov[i] = 0
                let d = UInt64(first[i])
                let sAG = mul2(srcAG, m), sRB = mul2(srcRB, m)
                let inv = 255 - (sAG >> 16)
                let ag = sAG + mul2((d >> 8) & 0xff00ff, inv), rb = sRB + mul2(d & 0xff00ff, inv)
                first[i] = UInt32(truncatingIfNeeded: ag << 8 | rb)
            }
        }
        touchedCount = 0
    }
}

/// The image under `cr` when the renderer may write its pixels itself (`ThinLineRaster`,
/// `CairoRenderer.drawInBands`): an ARGB32 image surface drawn with OVER, outside any group,
/// without device offset, and unclipped (the clip's extents, in device space, are the image's).
struct PlainImage {
    let target: OpaquePointer
    let pixels: UnsafeMutablePointer<UInt8>
    let width: Int, height: Int, stride: Int

    init?(_ cr: OpaquePointer) {
        guard let target = cairo_get_target(cr), cairo_get_group_target(cr) == target,
              cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
              cairo_image_surface_get_format(target) == CAIRO_FORMAT_ARGB32,
              cairo_get_operator(cr) == CAIRO_OPERATOR_OVER else { return nil }
        var ox = 0.0, oy = 0.0
        cairo_surface_get_device_offset(target, &ox, &oy)
        let w = Int(cairo_image_surface_get_width(target)), h = Int(cairo_image_surface_get_height(target))
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        cairo_user_to_device(cr, &x0, &y0)
        cairo_user_to_device(cr, &x1, &y1)
        guard ox == 0, oy == 0, x0 == 0, y0 == 0, x1 == Double(w), y1 == Double(h),
              let base = cairo_image_surface_get_data(target) else { return nil }
        self.target = target
        pixels = base
        width = w
        height = h
        stride = Int(cairo_image_surface_get_stride(target))
    }
}
