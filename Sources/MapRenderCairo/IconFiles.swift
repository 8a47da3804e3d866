import CCairo
import CRsvg
import Foundation
import MapRenderCore

/// Reads and checks icon files (`--marker-icon`, the style's `marker.icon`) into `MarkerIcon`s,
/// before any planning, so that a bad file stops the render with a message naming it:
///
/// - a missing or unreadable file: exit 66 ("cannot read icon FILE: no such file");
/// - a file over `maxFileBytes`, one that is neither PNG nor SVG, a PNG or SVG that does not
///   decode, or an icon over `maxDrawnSize` CSS px a side as drawn: exit 65, naming the file.
///
/// A PNG's size is read from its header and bounded (`maxPNGSide`) before its pixels are
/// decoded; an SVG is parsed (librsvg) and its size bounded before it is drawn. Each file is
/// read once per process for a given `icon-size` and anchor.
public enum IconLoader {
    /// The largest icon file, bytes.
    public static let maxFileBytes = 2 << 20
    /// The largest PNG icon side, pixels, checked on its header before decoding.
    public static let maxPNGSide = 2048
    /// The largest icon drawn, CSS px a side (after `icon-size`).
    public static let maxDrawnSize = 512.0

    /// Reads every icon the style names (`Style.Marker.iconFiles`) into `style.marker.icons`;
    /// those already there are kept.
    public static func load(style: inout Style) throws {
        let m = style.marker
        for name in m.iconFiles where m.icons[name] == nil {
            style.marker.icons[name] = try load(file: m.iconPath(name), size: m.iconSize, anchor: m.iconAnchor)
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: [String: MarkerIcon] = [:]

    /// One icon file, drawn at its own size times `size`, anchored at `anchor` (nil: bottom when
    /// pin-like, else centre).
    public static func load(file: String, size: Double = 1, anchor: MarkerIcon.Anchor? = nil) throws -> MarkerIcon {
        let key = "\(file)\u{0}\(size)\u{0}\(anchor?.rawValue ?? "")"
        lock.lock()
        if let icon = loaded[key] { lock.unlock(); return icon }
        lock.unlock()
        let icon = try read(file: file, size: size, anchor: anchor)
        lock.lock()
        if loaded.count < 1024 { loaded[key] = icon }
        lock.unlock()
        return icon
    }

    static func read(file: String, size: Double, anchor: MarkerIcon.Anchor?) throws -> MarkerIcon {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDir) else {
            throw MapRenderError(.inputUnreadable, "cannot read icon \(file): no such file")
        }
        guard !isDir.boolValue else { throw MapRenderError(.inputUnreadable, "cannot read icon \(file): it is a folder") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        if let n = (attributes?[.size] as? NSNumber)?.intValue, n > maxFileBytes {
            throw MapRenderError(.inputMalformed, "icon \(file) is \(n) bytes; an icon file is at most \(maxFileBytes >> 20) MB")
        }
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw MapRenderError(.inputUnreadable, "cannot read icon \(file): permission denied")
        }
        defer { try? handle.close() }
        // One byte more than the limit: a file that grew since it was measured is still refused.
        let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
        guard data.count <= maxFileBytes else {
            throw MapRenderError(.inputMalformed, "icon \(file) is over \(maxFileBytes >> 20) MB; an icon file is at most \(maxFileBytes >> 20) MB")
        }
        return try icon(bytes: [UInt8](data), name: file, size: size, anchor: anchor)
    }

    /// An icon from bytes in memory (a served map's `url-` marker image, fetched by the server),
    /// checked as a file's are; `name` stands for the file in messages and in `MarkerIcon.file`.
    /// - Parameter maxDrawn: the largest side drawn, CSS px (`maxDrawnSize` for files).
    public static func icon(bytes: [UInt8], name file: String, size: Double = 1, anchor: MarkerIcon.Anchor? = nil,
                            maxDrawn: Double = maxDrawnSize) throws -> MarkerIcon {
        guard size > 0, size.isFinite else { throw MapRenderError(.usage, "icon size must be positive, got \(size)") }
        let format: MarkerIcon.Format
        let own: (width: Double, height: Double)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            format = .png
            // IHDR is the first chunk: width and height, big-endian, at bytes 16 and 20.
            guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
                throw MapRenderError(.inputMalformed, "icon \(file) is not a readable PNG: no IHDR header")
            }
            func be32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
            let w = be32(16), h = be32(20)
            guard w > 0, h > 0, w <= maxPNGSide, h <= maxPNGSide else {
                throw MapRenderError(.inputMalformed, "icon \(file) is \(w)x\(h) pixels; a PNG icon is at most \(maxPNGSide) pixels a side")
            }
            own = (Double(w), Double(h))
        } else if looksLikeSVG(bytes) {
            format = .svg
            guard let s = try SVGIcon.intrinsicSize(bytes, file: file) else {
                throw MapRenderError(.inputMalformed, "icon \(file): the SVG has no width and height or viewBox to size it by")
            }
            own = s
        } else {
            throw MapRenderError(.inputMalformed, "icon \(file) is not an image maprender can draw: expected a PNG or an SVG file")
        }
        let w = own.width * size, h = own.height * size
        guard w >= 1, h >= 1, w <= maxDrawn, h <= maxDrawn else {
            throw MapRenderError(.inputMalformed, "icon \(file) would be drawn \(fmt(w))x\(fmt(h)) px; an icon is 1...\(Int(maxDrawn)) px a side (its own size times marker.icon-size)")
        }
        // Drawn once at its size: the PNG decodes (or fails here, naming the file), and its
        // pixels decide whether it is pin-like.
        let draft = MarkerIcon(file: file, format: format, bytes: bytes, width: w, height: h, anchor: .center, pinLike: false)
        let alpha = try IconPainter.alpha(draft)
        let pinLike = IconShape.isPinLike(alpha: alpha.values, width: alpha.width, height: alpha.height)
        return MarkerIcon(file: file, format: format, bytes: bytes, width: w, height: h,
                          anchor: anchor ?? (pinLike ? .bottom : .center), pinLike: pinLike)
    }

    /// An SVG document: after a byte order mark and white space, `<`, and an `<svg` element in
    /// its first 64 KB.
    public static func looksLikeSVG(_ bytes: [UInt8]) -> Bool {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "<") else { return false }
        let head = String(decoding: bytes.prefix(65536), as: UTF8.self)
        return head.contains("<svg")
    }

    static func fmt(_ v: Double) -> String { String(format: "%g", v) }
}

/// librsvg, for SVG icons: a handle per use (librsvg handles are not shared between threads).
enum SVGIcon {
    /// A parsed SVG, or an error naming the file.
    static func open(_ bytes: [UInt8], file: String) throws -> OpaquePointer {
        var reason = [CChar](repeating: 0, count: 256)
        let handle = bytes.withUnsafeBufferPointer { mr_svg_open($0.baseAddress, $0.count, &reason) }
        guard let handle else {
            let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let missing = mr_rsvg_problem() {
                throw MapRenderError(.unavailable, "icon \(file): \(String(cString: missing))")
            }
            throw MapRenderError(.inputMalformed, "icon \(file) is not a readable SVG: \(why)")
        }
        return handle
    }

    static func close(_ handle: OpaquePointer) {
        mr_svg_close(handle)
    }

    /// Its width and height in CSS px: from `width` and `height`, else from the `viewBox`; nil
    /// when it has neither.
    static func intrinsicSize(_ bytes: [UInt8], file: String) throws -> (width: Double, height: Double)? {
        let handle = try open(bytes, file: file)
        defer { close(handle) }
        var w = 0.0, h = 0.0
        return mr_svg_intrinsic_size(handle, &w, &h) != 0 ? (w, h) : nil
    }
}

/// Draws an icon in a box of the current user space: a PNG as an image (decoded once per
/// process and cached), an SVG through librsvg as vector paths (so SVG and PDF output keep it
/// vector; raster output gets its pixels).
enum IconPainter {
    private static let lock = NSLock()
    /// Decoded PNG icons by digest (Cairo image surfaces), at most `surfaceBytesLimit` bytes of
    /// pixels: a server drawing many `url-` marker images holds no more (when the next would pass
    /// the limit the cache is emptied; surfaces being drawn keep their own references).
    nonisolated(unsafe) private static var surfaces: [UInt64: OpaquePointer] = [:]
    nonisolated(unsafe) private static var surfaceBytes = 0
    static let surfaceBytesLimit = 64 << 20

    /// - Returns: false when librsvg could not draw an SVG.
    @discardableResult
    static func draw(_ icon: MarkerIcon, in r: Rect, on cr: OpaquePointer) -> Bool {
        guard r.width > 0, r.height > 0 else { return true }
        switch icon.format {
        case .png:
            guard let s = try? surface(icon) else { return false }
            defer { cairo_surface_destroy(s) }
            let iw = Double(cairo_image_surface_get_width(s)), ih = Double(cairo_image_surface_get_height(s))
            withSavedState(cr) {
                cairo_translate(cr, r.x, r.y)
                cairo_scale(cr, r.width / iw, r.height / ih)
                cairo_set_source_surface(cr, s, 0, 0)
                let pattern = cairo_get_source(cr)
                cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
                cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
                cairo_rectangle(cr, 0, 0, iw, ih)
                cairo_fill(cr)
            }
        case .svg:
            guard let handle = try? SVGIcon.open(icon.bytes, file: icon.file) else { return false }
            defer { SVGIcon.close(handle) }
            return withSavedState(cr) { mr_svg_render(handle, UnsafeMutableRawPointer(cr), r.x, r.y, r.width, r.height) != 0 }
        }
        return true
    }

    /// The PNG decoded (a new reference to the cached surface: the caller destroys it), or an
    /// error naming the file.
    static func surface(_ icon: MarkerIcon) throws -> OpaquePointer {
        lock.lock()
        if let s = surfaces[icon.digest] { lock.unlock(); return cairo_surface_reference(s) }
        lock.unlock()
        let reader = PNGBytes(icon.bytes)
        let s = cairo_image_surface_create_from_png_stream({ closure, data, length in
            let r = Unmanaged<PNGBytes>.fromOpaque(closure!).takeUnretainedValue()
            let n = Int(length)
            guard let data, r.at + n <= r.bytes.count else { return CAIRO_STATUS_READ_ERROR }
            r.bytes.withUnsafeBufferPointer { UnsafeMutableRawPointer(data).copyMemory(from: $0.baseAddress! + r.at, byteCount: n) }
            r.at += n
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(reader).toOpaque())!
        withExtendedLifetime(reader) {}
        let status = cairo_surface_status(s)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(s)
            throw MapRenderError(.inputMalformed, "icon \(icon.file) is not a readable PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        lock.lock()
        defer { lock.unlock() }
        if let other = surfaces[icon.digest] { cairo_surface_destroy(s); return cairo_surface_reference(other) }
        let bytes = Int(cairo_image_surface_get_stride(s)) * Int(cairo_image_surface_get_height(s))
        guard bytes <= surfaceBytesLimit / 4 else { return s }
        if surfaceBytes + bytes > surfaceBytesLimit || surfaces.count >= 256 {
            for (_, old) in surfaces { cairo_surface_destroy(old) }
            surfaces.removeAll(keepingCapacity: true)
            surfaceBytes = 0
        }
        surfaces[icon.digest] = s
        surfaceBytes += bytes
        return cairo_surface_reference(s)
    }

    /// The icon drawn alone at its size (whole pixels, rounded up): each pixel's alpha, rows top
    /// to bottom. Decodes a PNG (an error names a broken one).
    static func alpha(_ icon: MarkerIcon) throws -> (values: [UInt8], width: Int, height: Int) {
        if icon.format == .png { cairo_surface_destroy(try surface(icon)) }
        let w = Int(icon.width.rounded(.up)), h = Int(icon.height.rounded(.up))
        guard let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else { return ([], 0, 0) }
        defer { cairo_surface_destroy(s) }
        let cr = cairo_create(s)!
        let drawn = draw(icon, in: Rect(x: 0, y: 0, width: icon.width, height: icon.height), on: cr)
        cairo_destroy(cr)
        guard drawn else { throw MapRenderError(.inputMalformed, "icon \(icon.file): librsvg cannot draw this SVG") }
        cairo_surface_flush(s)
        guard let data = cairo_image_surface_get_data(s) else { return ([], 0, 0) }
        let stride = Int(cairo_image_surface_get_stride(s))
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w { out[y * w + x] = UInt8(row[x] >> 24) }
        }
        return (out, w, h)
    }

    private final class PNGBytes {
        let bytes: [UInt8]
        var at = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }
}
