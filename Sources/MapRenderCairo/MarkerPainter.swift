import CCairo
import Foundation
import MapRenderCore

/// Draws one marker symbol with its anchor at (x, y), in the current user space, from the
/// backend-neutral outlines of `MarkerGeometry` (the same ones the animated SVG writes).
enum MarkerPainter {
    /// What to paint of a symbol: all of it, or (for `outlinesFirst` symbols) the outline pass or
    /// the fill pass, as `MarkerGeometry` defines them.
    typealias Part = MarkerGeometry.Part

    /// - Parameter text: draws the symbol's `text` (Pango), centred where `MarkerGeometry` says.
    static func draw(_ s: MarkerSymbol, on cr: OpaquePointer, x: Double, y: Double, part: Part = .whole, text: PangoText? = nil) {
        let grouped = s.opacity < 1
        if grouped { cairo_push_group(cr) }
        if let icon = s.icon, let r = MarkerGeometry.iconRect(for: s), part != .outline {
            IconPainter.draw(icon, in: Rect(x: x + r.x, y: y + r.y, width: r.width, height: r.height), on: cr)
        }
        for layer in MarkerGeometry.layers(for: s, part: part) {
            cairo_new_path(cr)
            appendPath(layer.path, to: cr, x: x, y: y)
            layer.fill.setSource(cr)
            if layer.strokeWidth > 0 {
                cairo_fill_preserve(cr)
                layer.stroke.setSource(cr)
                cairo_set_line_width(cr, layer.strokeWidth)
                cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
                cairo_stroke(cr)
            } else {
                cairo_fill(cr)
            }
        }
        if let t = s.text, let o = MarkerGeometry.textOrigin(for: s), let text, part != .outline {
            text.draw(t.text, font: t.font, color: t.color, halo: nil, haloWidth: 0, x: x + o.x, y: y + o.y, on: cr)
        }
        if grouped {
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, s.opacity)
        }
    }

    /// Replays path elements, offset by (x, y), onto Cairo's current path.
    static func appendPath(_ path: [PathElement], to cr: OpaquePointer, x: Double, y: Double) {
        for e in path {
            switch e {
            case .moveTo(let px, let py): cairo_move_to(cr, x + px, y + py)
            case .lineTo(let px, let py): cairo_line_to(cr, x + px, y + py)
            case .arc(let cx, let cy, let r, let from, let to): cairo_arc(cr, x + cx, y + cy, r, from, to)
            case .close: cairo_close_path(cr)
            }
        }
    }
}

/// Pre-rendered raster markers: each symbol drawn once per sub-pixel offset, then painted
/// ("stamped") at integer device offsets.
///
/// Measured on Cairo 1.16: a path per marker (arc, fill, stroke) costs ~14 µs, painting a
/// surface at an integer offset ~1 µs, at a fractional offset (bilinear filtering) ~3.4 µs.
/// Four sub-pixel steps per axis keep positions within 1/8 device pixel.
final class MarkerStamps {
    static let steps = 4

    struct Stamp {
        var symbol: MarkerSymbol
        /// One surface per sub-pixel offset, index `fy * steps + fx`, drawn when a paint first
        /// needs it (`surface(_:)`): a map of 10 lettered pins draws 10 of its 160, not all.
        var surfaces: [OpaquePointer?]
        /// For `outlinesFirst` symbols, the outline pass (and `surfaces` then hold the fill only).
        var outlines: [OpaquePointer?] = []
        /// Device pixels from the surface's top-left to the anchor at offset 0.
        var anchorX: Int
        var anchorY: Int
        /// The surfaces' size in device pixels.
        var width: Int
        var height: Int
    }

    /// The stamp surfaces' pixels as flat arrays, for skipping covered paints and compositing
    /// without a Cairo call per marker. Surface `s` is `width[s]` x `height[s]` pixels from
    /// `pixelStart[s]` (premultiplied ARGB32, rows packed); its row r (global row `rowStart[s] + r`)
    /// has ink in columns `inkLo..<inkHi` and opaque runs `opaqueRuns[opaqueStart[row]..<opaqueStart[row + 1]]`.
    /// A surface no paint uses is added empty (0 x 0).
    struct Pixels {
        var width: [Int] = [], height: [Int] = [], pixelStart: [Int] = [], rowStart: [Int] = []
        var pixels: [UInt32] = []
        var inkLo: [Int32] = [], inkHi: [Int32] = []
        var opaqueStart: [Int] = [0]
        var opaqueRuns: [(lo: Int32, hi: Int32)] = []

        mutating func addEmpty() {
            width.append(0); height.append(0); pixelStart.append(pixels.count); rowStart.append(inkLo.count)
        }

        mutating func add(_ surface: OpaquePointer) {
            cairo_surface_flush(surface)
            let w = Int(cairo_image_surface_get_width(surface)), h = Int(cairo_image_surface_get_height(surface))
            let stride = Int(cairo_image_surface_get_stride(surface))
            let data = cairo_image_surface_get_data(surface)!
            width.append(w); height.append(h); pixelStart.append(pixels.count); rowStart.append(inkLo.count)
            for row in 0..<h {
                let px = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
                var lo = w, hi = 0, run = -1
                for col in 0..<w {
                    pixels.append(px[col])
                    let alpha = px[col] >> 24  // ARGB32 in native order: alpha in the top byte
                    if alpha != 0 { lo = min(lo, col); hi = col + 1 }
                    if alpha == 255 {
                        if run < 0 { run = col }
                    } else if run >= 0 {
                        opaqueRuns.append((Int32(run), Int32(col))); run = -1
                    }
                }
                if run >= 0 { opaqueRuns.append((Int32(run), Int32(w))) }
                inkLo.append(Int32(lo)); inkHi.append(Int32(hi)); opaqueStart.append(opaqueRuns.count)
            }
        }
    }

    private(set) var stamps: [Stamp] = []
    private let scale: Double
    private let text: PangoText?

    /// - Parameter text: draws the symbols' texts (nil: symbols have none).
    init(symbols: [MarkerSymbol], scale: Double, text: PangoText? = nil) throws {
        self.scale = scale
        self.text = text
        for s in symbols {
            let e = s.extent
            let ax = Int((e.left * scale).rounded(.up)) + 1, ay = Int((e.top * scale).rounded(.up)) + 1
            let w = ax + Int((e.right * scale).rounded(.up)) + 2
            let h = ay + Int((e.bottom * scale).rounded(.up)) + 2
            let none = [OpaquePointer?](repeating: nil, count: Self.steps * Self.steps)
            stamps.append(Stamp(symbol: s, surfaces: none, outlines: s.outlinesFirst ? none : [],
                                anchorX: ax, anchorY: ay, width: w, height: h))
        }
    }

    /// How many of the stamps' surfaces have been drawn.
    var drawnSurfaces: Int { stamps.reduce(0) { $0 + ($1.surfaces + $1.outlines).filter { $0 != nil }.count } }

    deinit {
        for s in stamps { for surf in s.surfaces + s.outlines { if let surf { cairo_surface_destroy(surf) } } }
    }

    /// Surface number `n` (see `paint`), drawn the first time it is asked for.
    private func surface(_ n: Int) throws -> OpaquePointer {
        let perSymbol = Self.steps * Self.steps
        let i = n / (2 * perSymbol), outline = (n / perSymbol) % 2 == 1, offset = n % perSymbol
        let st = stamps[i]
        let two = !st.outlines.isEmpty
        if let s = (outline && two ? st.outlines : st.surfaces)[offset] { return s }
        guard let surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(st.width), Int32(st.height)) else {
            throw MapRenderError(.internal, "cairo: cannot create a marker surface")
        }
        let cr = cairo_create(surf)!
        cairo_translate(cr, Double(st.anchorX) + Double(offset % Self.steps) / Double(Self.steps),
                        Double(st.anchorY) + Double(offset / Self.steps) / Double(Self.steps))
        cairo_scale(cr, scale, scale)
        MarkerPainter.draw(st.symbol, on: cr, x: 0, y: 0, part: two ? (outline ? .outline : .fill) : .whole, text: text)
        let status = cairo_status(cr)
        cairo_destroy(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surf)
            try cairoCheck(status, "drawing a marker")
            throw MapRenderError(.internal, "cairo: drawing a marker failed")
        }
        cairo_surface_flush(surf)
        if outline && two { stamps[i].outlines[offset] = surf } else { stamps[i].surfaces[offset] = surf }
        return surf
    }

    /// Paints every marker of the batch; `cr` must have an identity matrix (device space).
    /// Markers of `outlinesFirst` symbols get all their outlines painted before any marker.
    ///
    /// On an unclipped ARGB32 image (the PNG backend) the paints are composited here, with
    /// pixman's OVER arithmetic (`dst = src + dst × (255 − αsrc) / 255`, rounded as pixman
    /// rounds), and a paint whose every inked pixel a later paint covers with opaque pixels is
    /// skipped: an opaque source pixel replaces what was under it, so the image is the same to
    /// the last bit as one `cairo_paint` per marker (dense maps cover most markers many times).
    /// - Parameters:
    ///   - direct: false paints every marker through Cairo (for tests: the same image).
    ///   - bands: how many bands of rows to composite in (for tests; by default four a core).
    func paint(_ batch: MarkerBatch, on cr: OpaquePointer, scale: Double, direct: Bool = true, bands: Int? = nil) throws {
        let steps = Double(Self.steps), perSymbol = Self.steps * Self.steps
        let twoPasses = stamps.contains { !$0.outlines.isEmpty }
        // Every paint in drawing order: the outline pass (when any), then the markers. Surface
        // numbers: symbol s's fill surfaces from 2s × perSymbol, its outline surfaces after them.
        var ops: [(surface: Int32, x: Int32, y: Int32)] = []
        ops.reserveCapacity(batch.count * (twoPasses ? 2 : 1))
        var offscreen = false
        for outlines in twoPasses ? [true, false] : [false] {
            for k in 0..<batch.count {
                let stampIndex = Int(batch.symbol[k])
                let st = stamps[stampIndex]
                if outlines && st.outlines.isEmpty { continue }
                let dx = batch.x[k] * scale, dy = batch.y[k] * scale
                var ix = dx.rounded(.down), iy = dy.rounded(.down)
                var fx = Int(((dx - ix) * steps).rounded()), fy = Int(((dy - iy) * steps).rounded())
                if fx == Self.steps { fx = 0; ix += 1 }
                if fy == Self.steps { fy = 0; iy += 1 }
                let left = ix - Double(st.anchorX), top = iy - Double(st.anchorY)
                guard abs(left) < 1e9, abs(top) < 1e9 else { offscreen = true; continue }
                let surface = (stampIndex * 2 + (outlines ? 1 : 0)) * perSymbol + fy * Self.steps + fx
                ops.append((Int32(surface), Int32(left), Int32(top)))
            }
        }
        // The surfaces the paints use, drawn now (in surface order: the same bits whatever the
        // paints' order), the others never.
        var used = [OpaquePointer?](repeating: nil, count: stamps.count * 2 * perSymbol)
        var wanted = [Bool](repeating: false, count: used.count)
        for op in ops { wanted[Int(op.surface)] = true }
        for n in wanted.indices where wanted[n] { used[n] = try surface(n) }
        if direct, !offscreen, composite(ops, surfaces: used, on: cr, bands: bands) { return }
        for op in ops {
            cairo_set_source_surface(cr, used[Int(op.surface)]!, Double(op.x), Double(op.y))
            cairo_paint(cr)
        }
    }

    /// Composites the paints straight into `cr`'s image, when it is a plain unclipped ARGB32
    /// image drawn with OVER; false (nothing drawn) otherwise.
    private func composite(_ ops: [(surface: Int32, x: Int32, y: Int32)], surfaces: [OpaquePointer?],
                           on cr: OpaquePointer, bands parts: Int?) -> Bool {
        let target = cairo_get_target(cr)!
        guard cairo_get_group_target(cr) == target,
              cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
              cairo_image_surface_get_format(target) == CAIRO_FORMAT_ARGB32,
              cairo_get_operator(cr) == CAIRO_OPERATOR_OVER else { return false }
        var ox = 0.0, oy = 0.0
        cairo_surface_get_device_offset(target, &ox, &oy)
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        let w = Int(cairo_image_surface_get_width(target)), h = Int(cairo_image_surface_get_height(target))
        guard ox == 0, oy == 0, x0 == 0, y0 == 0, x1 == Double(w), y1 == Double(h), w > 0, h > 0,
              cairo_image_surface_get_stride(target) == Int32(4 * w),
              let base = cairo_image_surface_get_data(target) else { return false }
        var px = Pixels()
        for surface in surfaces { if let surface { px.add(surface) } else { px.addEmpty() } }
        cairo_surface_flush(target)
        let dst = UnsafeMutableRawPointer(base).bindMemory(to: UInt32.self, capacity: w * h)
        // Each band of image rows is covered and composited on a core of its own: a pixel's
        // value depends only on the paints over it, in their order, so the bands give the same
        // bits as one pass over the whole image.
        // Four bands a core (up to 8 cores), taken as the cores come free: the paints' cost per
        // row varies (covered rows are tested, not drawn), and two bands of equal paint rows left
        // one core a third of the work. Each band reads every paint's place once.
        let bands = Self.bands(ops, heights: px.height, imageHeight: h,
                               parts: parts ?? 4 * max(1, min(8, ProcessInfo.processInfo.activeProcessorCount)))
        DispatchQueue.concurrentPerform(iterations: bands.count) { b in
            let band = bands[b]
            let visible = visibleRows(ops, pixels: px, width: w, rows: band)
            px.pixels.withUnsafeBufferPointer { src in
                for (n, mask) in visible.reversed() {
                    let op = ops[Int(n)], s = Int(op.surface)
                    let sw = px.width[s], sh = px.height[s], left = Int(op.x), top = Int(op.y)
                    let r0 = max(0, band.lowerBound - top), r1 = min(sh, band.upperBound - top)
                    guard r0 < r1 else { continue }
                    for row in r0..<r1 where row >= 64 || mask & (1 << UInt64(row)) != 0 {
                        let r = px.rowStart[s] + row
                        let lo = max(left + Int(px.inkLo[r]), 0), hi = min(left + Int(px.inkHi[r]), w)
                        guard lo < hi else { continue }
                        let line = (top + row) * w, from = px.pixelStart[s] + row * sw - left
                        for x in lo..<hi { dst[line + x] = Self.over(src[from + x], dst[line + x]) }
                    }
                }
            }
        }
        cairo_surface_mark_dirty(target)
        return true
    }

    /// Splits the image rows `0..<imageHeight` into up to `parts` bands holding about as many
    /// rows of paints each (a dense map's paints crowd into a few cities: equal bands of the
    /// image would leave a core idle). `heights[s]`: surface `s`'s rows.
    /// - Complexity: O(ops + imageHeight).
    static func bands(_ ops: [(surface: Int32, x: Int32, y: Int32)], heights: [Int], imageHeight h: Int,
                      parts: Int) -> [Range<Int>] {
        guard parts > 1, h > 1 else { return [0..<max(h, 0)] }
        // The paint rows inside the image, counted at the row where each paint enters it.
        var entering = [Int](repeating: 0, count: h)
        var total = 0
        for op in ops {
            let top = Int(op.y)
            let r0 = max(0, top), r1 = min(h, top + heights[Int(op.surface)])
            guard r0 < r1 else { continue }
            entering[r0] += r1 - r0
            total += r1 - r0
        }
        guard total > 0 else { return [0..<h] }
        var out: [Range<Int>] = []
        var from = 0, sum = 0
        for y in 0..<(h - 1) where out.count < parts - 1 {
            sum += entering[y]
            if sum * parts >= total * (out.count + 1) {
                out.append(from..<(y + 1))
                from = y + 1
            }
        }
        out.append(from..<h)
        return out
    }

    /// pixman's OVER for premultiplied ARGB32: `s + d × (255 − αs) / 255` per channel, each
    /// product rounded as `(t + 0x80 + ((t + 0x80) >> 8)) >> 8`, sums saturated.
    @inline(__always)
    static func over(_ s: UInt32, _ d: UInt32) -> UInt32 {
        let ia = 255 &- (s >> 24)
        if ia == 0 { return s }
        if ia == 255 { return d }
        var lo = (d & 0x00ff_00ff) &* ia &+ 0x0080_0080
        lo = ((lo &+ ((lo >> 8) & 0x00ff_00ff)) >> 8) & 0x00ff_00ff
        var hi = ((d >> 8) & 0x00ff_00ff) &* ia &+ 0x0080_0080
        hi = (hi &+ ((hi >> 8) & 0x00ff_00ff)) & 0xff00_ff00
        let m = hi | lo
        // Saturating add per channel, two channels at a time.
        var a = (s & 0x00ff_00ff) &+ (m & 0x00ff_00ff)
        a = (a | (0x0100_0100 &- ((a >> 8) & 0x00ff_00ff))) & 0x00ff_00ff
        var b = ((s >> 8) & 0x00ff_00ff) &+ ((m >> 8) & 0x00ff_00ff)
        b = (b | (0x0100_0100 &- ((b >> 8) & 0x00ff_00ff))) & 0x00ff_00ff
        return a | (b << 8)
    }

    /// The paints with an inked pixel in the image rows `band` that stays visible in the end, last
    /// to first, each with which of its rows (bit r for row r) have one: walked last to first,
    /// each paint's opaque pixels marked as covering what came before. Paints covered completely
    /// are left out. Stamps taller than 64 rows get all bits set when any row is visible.
    ///
    /// Hand-written because it is the hot loop of a dense map (1M pins: 1M paints of ~30 rows) and
    /// no library answers "is this span covered" faster than a bit test: coverage is one bit per
    /// pixel (a 64-pixel span is one or two word tests), and only rows with a visible pixel mark
    /// their opaque runs (a row whose ink is all covered adds no coverage).
    private func visibleRows(_ ops: [(surface: Int32, x: Int32, y: Int32)], pixels px: Pixels, width w: Int,
                             rows band: Range<Int>) -> [(paint: Int32, rows: UInt64)] {
        var visible: [(paint: Int32, rows: UInt64)] = []
        let words = (w + 63) >> 6
        var coveredBits = [UInt64](repeating: 0, count: words * band.count)
        coveredBits.withUnsafeMutableBufferPointer { covered in
        px.inkLo.withUnsafeBufferPointer { inkLo in
        px.inkHi.withUnsafeBufferPointer { inkHi in
        px.opaqueStart.withUnsafeBufferPointer { opaqueStart in
        px.opaqueRuns.withUnsafeBufferPointer { opaqueRuns in
            for n in ops.indices.reversed() {
                let op = ops[n], s = Int(op.surface)
                let left = Int(op.x), top = Int(op.y), height = px.height[s]
                let r0 = max(0, band.lowerBound - top), r1 = min(height, band.upperBound - top)
                guard r0 < r1, left < w, left + px.width[s] > 0 else { continue }
                var mask: UInt64 = 0
                let rowStart = px.rowStart[s]
                for row in r0..<r1 {
                    let r = rowStart + row
                    let lo = max(left + Int(inkLo[r]), 0), hi = min(left + Int(inkHi[r]), w)
                    guard lo < hi else { continue }
                    let line = (top + row - band.lowerBound) * words
                    guard !Self.allBits(covered, row: line, from: lo, to: hi) else { continue }
                    mask |= row < 64 ? 1 << UInt64(row) : ~0
                    // This row's opaque pixels now cover what came before. (A row whose ink was
                    // all covered already has nothing new to mark: its opaque runs lie inside.)
                    for k in opaqueStart[r]..<opaqueStart[r + 1] {
                        let run = opaqueRuns[k]
                        let lo = max(left + Int(run.lo), 0), hi = min(left + Int(run.hi), w)
                        if lo < hi { Self.setBits(covered, row: line, from: lo, to: hi) }
                    }
                }
                if mask != 0 { visible.append((Int32(n), height > 64 ? ~0 : mask)) }
            }
        }
        }
        }
        }
        }
        return visible
    }

    /// Whether bits `lo..<hi` (lo < hi) of the bit row starting at word `row` are all set.
    @inline(__always)
    static func allBits(_ bits: UnsafeMutableBufferPointer<UInt64>, row: Int, from lo: Int, to hi: Int) -> Bool {
        var wi = lo >> 6
        let we = (hi - 1) >> 6
        let first: UInt64 = ~0 << UInt64(lo & 63), last: UInt64 = ~0 >> UInt64(63 - ((hi - 1) & 63))
        if wi == we { let m = first & last; return bits[row + wi] & m == m }
        if bits[row + wi] & first != first { return false }
        wi += 1
        while wi < we {
            if bits[row + wi] != ~0 { return false }
            wi += 1
        }
        return bits[row + we] & last == last
    }

    /// Sets bits `lo..<hi` (lo < hi) of the bit row starting at word `row`.
    @inline(__always)
    static func setBits(_ bits: UnsafeMutableBufferPointer<UInt64>, row: Int, from lo: Int, to hi: Int) {
        var wi = lo >> 6
        let we = (hi - 1) >> 6
        let first: UInt64 = ~0 << UInt64(lo & 63), last: UInt64 = ~0 >> UInt64(63 - ((hi - 1) & 63))
        if wi == we { bits[row + wi] |= first & last; return }
        bits[row + wi] |= first
        wi += 1
        while wi < we { bits[row + wi] = ~0; wi += 1 }
        bits[row + we] |= last
    }
}
