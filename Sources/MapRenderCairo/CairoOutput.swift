import CCairo
import CImageCodec
import Foundation
import MapRenderCore

/// Collects the bytes Cairo writes through a stream callback.
final class ByteSink {
    var data = Data()
}

/// The C write callback: appends to the `ByteSink` passed as the closure pointer.
let byteSinkWrite: cairo_write_func_t = { closure, bytes, length in
    guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
    let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
    sink.data.append(bytes, count: Int(length))
    return CAIRO_STATUS_SUCCESS
}

func cairoCheck(_ status: cairo_status_t, _ what: String) throws {
    guard status == CAIRO_STATUS_SUCCESS else {
        let msg = String(cString: cairo_status_to_string(status))
        throw MapRenderError(.internal, "cairo: \(what): \(msg)")
    }
}

extension RGBA {
    func setSource(_ cr: OpaquePointer) {
        cairo_set_source_rgba(cr, r, g, b, a)
    }
}

/// Scoped Cairo state: `withSavedState(cr) { ... }` saves and restores the graphics state.
@inline(__always)
func withSavedState<T>(_ cr: OpaquePointer, _ body: () throws -> T) rethrows -> T {
    cairo_save(cr)
    defer { cairo_restore(cr) }
    return try body()
}

/// Strokes the current path with a soft edge, and clears the path: opaque `color` out to `inner`
/// px from the path, fading linearly to none at `outer` (a blurred text halo, `line-blur`).
/// Deterministic and vector in every format: `fadeSteps` strokes from the widest in, the k-th of
/// n at alpha 1 / (n - k + 1), so a point under k of them is covered k / n, in a group (only as
/// large as the strokes) painted with the colour's alpha. A stroke whose radius would be 0 or
/// less is left out: where the fade is wider than the line, the middle is covered less than fully.
/// The line's cap, join and dash are the caller's.
func strokeFading(_ cr: OpaquePointer, color: RGBA, outer: Double, inner: Double) {
    guard outer > 0, outer.isFinite, let path = cairo_copy_path(cr) else { cairo_new_path(cr); return }
    defer { cairo_path_destroy(path) }
    cairo_set_line_width(cr, 2 * outer)
    var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
    cairo_stroke_extents(cr, &x0, &y0, &x1, &y1)
    cairo_new_path(cr)
    cairo_save(cr)
    defer { cairo_restore(cr) }
    cairo_rectangle(cr, x0.rounded(.down) - 1, y0.rounded(.down) - 1, x1 - x0 + 3, y1 - y0 + 3)
    cairo_clip(cr)
    cairo_push_group(cr)
    cairo_append_path(cr, path)
    let n = fadeSteps
    for k in 1...n {
        let r = outer - (outer - inner) * Double(k - 1) / Double(n - 1)
        guard r > 0 else { continue }
        cairo_set_source_rgba(cr, color.r, color.g, color.b, 1 / Double(n - k + 1))
        cairo_set_line_width(cr, 2 * r)
        cairo_stroke_preserve(cr)
    }
    cairo_new_path(cr)
    cairo_pop_group_to_source(cr)
    cairo_paint_with_alpha(cr, color.a)
}

/// Strokes of a soft edge (`strokeFading`).
let fadeSteps = 6
