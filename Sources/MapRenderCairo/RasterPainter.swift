import CCairo
import Foundation
import MapRenderCore

/// Draws raster marks (basemap tiles). Each distinct `RasterImage` becomes one Cairo surface per
/// render, so SVG and PDF embed it once however often it is painted (world copies).
final class RasterPainter {
    private var surfaces: [ObjectIdentifier: OpaquePointer] = [:]

    deinit { surfaces.values.forEach { cairo_surface_destroy($0) } }

    /// Paints `mark.image` stretched over `mark.rect`, resampled with CAIRO_FILTER_GOOD (never
    /// nearest); edges padded, not faded, so neighbouring tiles meet without a seam.
    func draw(_ mark: RasterMark, on cr: OpaquePointer) {
        let img = mark.image, r = mark.rect
        guard r.width > 0, r.height > 0, img.width > 0, img.height > 0 else { return }
        let surface = self.surface(for: img)
        withSavedState(cr) {
            if mark.angle != 0, mark.angle.isFinite {
                // An icon along a line: the rect turned about its centre.
                cairo_translate(cr, r.x + r.width / 2, r.y + r.height / 2)
                cairo_rotate(cr, mark.angle)
                cairo_translate(cr, -(r.x + r.width / 2), -(r.y + r.height / 2))
            }
            cairo_rectangle(cr, r.x, r.y, r.width, r.height)
            cairo_clip(cr)
            cairo_translate(cr, r.x, r.y)
            cairo_scale(cr, r.width / Double(img.width), r.height / Double(img.height))
            cairo_set_source_surface(cr, surface, 0, 0)
            let pattern = cairo_get_source(cr)
            cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
            // Cairo's PDF writer pads an EXTEND_PAD image into a new one, losing a JPEG's own
            // bytes: there the tile is drawn unpadded (a PDF viewer does not fade image edges).
            let pdfJPEG = img.jpeg != nil && cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_PDF
            cairo_pattern_set_extend(pattern, pdfJPEG ? CAIRO_EXTEND_NONE : CAIRO_EXTEND_PAD)
            if mark.opacity < 1 { cairo_paint_with_alpha(cr, mark.opacity) } else { cairo_paint(cr) }
        }
    }

    func surface(for img: RasterImage) -> OpaquePointer {
        if let s = surfaces[ObjectIdentifier(img)] { return s }
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(img.width), Int32(img.height))!
        let stride = Int(cairo_image_surface_get_stride(s))
        let base = cairo_image_surface_get_data(s)!
        img.rgba.withUnsafeBufferPointer { src in
            for y in 0..<img.height {
                let row = UnsafeMutableRawPointer(base + y * stride).assumingMemoryBound(to: UInt32.self)
                var i = y * img.width * 4
                for x in 0..<img.width {
                    let a = UInt32(src[i + 3])
                    // Cairo wants premultiplied ARGB in native-endian 32-bit words.
                    func pm(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
                    row[x] = a << 24 | pm(src[i]) << 16 | pm(src[i + 1]) << 8 | pm(src[i + 2])
                    i += 4
                }
            }
        }
        cairo_surface_mark_dirty(s)
        // A JPEG tile: SVG and PDF embed the original bytes (image/jpeg, DCTDecode), once per
        // surface, instead of the pixels re-encoded as PNG; raster output ignores them.
        if let jpeg = img.jpeg, let copy = malloc(jpeg.count) {
            jpeg.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: jpeg.count) }
            let status = cairo_surface_set_mime_data(s, CAIRO_MIME_TYPE_JPEG, copy.assumingMemoryBound(to: UInt8.self),
                                                     UInt(jpeg.count), { free($0) }, copy)
            if status != CAIRO_STATUS_SUCCESS { free(copy) }
        }
        surfaces[ObjectIdentifier(img)] = s
        return s
    }
}
