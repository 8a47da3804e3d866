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

/// The same sink for libpng's writer (`mr_png_write_argb32`).
let pngSinkWrite: mr_png_write_fn = { closure, bytes, length in
    guard let closure, let bytes else { return 1 }
    Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: length)
    return 0
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
