import CCairo
import Foundation
import MapRenderCore

/// Reads and writes PNG files as ``RGBAImage`` (straight alpha) through Cairo's PNG support.
///
///     let expected = try PNGCodec.decode(path: "golden.png")
///     try PNGCodec.encode(actual).write(to: URL(fileURLWithPath: "actual.png"))
///
/// Cairo keeps pixels premultiplied, so a semi-transparent colour survives a round trip only
/// to within premultiplication rounding: at alpha `a` each channel may move by up to
/// `127.5 / a + 0.5` (exact for opaque pixels; fully transparent ones become (0, 0, 0, 0)).
public enum PNGCodec {
    /// Decodes the PNG file at `path`.
    ///
    /// - Throws: `MapRenderError` `.inputUnreadable` when the file is missing or unreadable,
    ///   `.inputMalformed` when it is not a (valid) PNG; messages start with the path.
    public static func decode(path: String) throws -> RGBAImage {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MapRenderError(.inputUnreadable, "\(path): no such file")
        }
        if isDirectory.boolValue {
            throw MapRenderError(.inputUnreadable, "\(path): is a directory, not a PNG file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw MapRenderError(.inputUnreadable, "\(path): cannot read file")
        }
        return try decode(data: data, name: path)
    }

    /// Decodes PNG bytes; `name` is used in error messages. `sizeChecked`: the caller has checked
    /// the header's size against a limit, so a failure to decode is the data, not memory.
    ///
    /// - Throws: `MapRenderError` `.inputMalformed` ("NAME: not a PNG file", "NAME: corrupt PNG: ...").
    public static func decode(data: Data, name: String = "PNG data", sizeChecked: Bool = false) throws -> RGBAImage {
        guard data.count >= signature.count, data.prefix(signature.count).elementsEqual(signature) else {
            throw MapRenderError(.inputMalformed, "\(name): not a PNG file")
        }
        let reader = StreamReader(data)
        let surface = withExtendedLifetime(reader) {
            cairo_image_surface_create_from_png_stream(readChunk, Unmanaged.passUnretained(reader).toOpaque())
        }
        guard let surface else {
            throw MapRenderError(.internal, "\(name): cairo returned no surface")
        }
        defer { cairo_surface_destroy(surface) }

        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            switch status {
            case CAIRO_STATUS_NO_MEMORY:
                // Cairo reports libpng's errors (a damaged IDAT stream) as NO_MEMORY too.
                throw MapRenderError(.inputMalformed, "\(name): corrupt PNG: its image data cannot be decoded"
                    + (sizeChecked ? " (damaged compressed data)" : " (or it is too large for memory)"))
            default:
                throw MapRenderError(.inputMalformed, "\(name): corrupt PNG: \(statusText(status))")
            }
        }
        return try image(from: surface, name: name)
    }

    /// Encodes `image` as PNG bytes (8 bits per channel; RGB when every pixel is opaque, RGBA otherwise).
    ///
    /// - Throws: `MapRenderError` `.inputMalformed` for a buffer of the wrong length or an empty
    ///   image, `.output` when Cairo cannot encode it.
    public static func encode(_ image: RGBAImage) throws -> Data {
        guard image.width > 0, image.height > 0 else {
            throw MapRenderError(.inputMalformed, "cannot encode an empty \(image.sizeDescription) image as PNG")
        }
        guard image.pixels.count == image.width * image.height * 4 else {
            throw MapRenderError(.inputMalformed,
                "image buffer has \(image.pixels.count) bytes, expected \(image.width * image.height * 4) for \(image.sizeDescription) RGBA")
        }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(clamping: image.width), Int32(clamping: image.height)) else {
            throw MapRenderError(.internal, "cairo returned no surface")
        }
        defer { cairo_surface_destroy(surface) }
        let created = cairo_surface_status(surface)
        guard created == CAIRO_STATUS_SUCCESS else {
            throw MapRenderError(.output, "cannot create a \(image.sizeDescription) image: \(statusText(created))")
        }

        fill(surface, from: image)

        let writer = StreamWriter()
        let status = withExtendedLifetime(writer) {
            cairo_surface_write_to_png_stream(surface, writeChunk, Unmanaged.passUnretained(writer).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw MapRenderError(.output, "cannot encode PNG: \(statusText(status))")
        }
        return writer.data
    }

    // MARK: - Pixel conversion

    /// Straight RGBA8 from a Cairo image surface (premultiplied native-endian ARGB32, or RGB24).
    private static func image(from surface: OpaquePointer, name: String) throws -> RGBAImage {
        let format = cairo_image_surface_get_format(surface)
        guard format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24 else {
            throw MapRenderError(.inputMalformed, "\(name): unsupported PNG pixel format (cairo format \(format.rawValue))")
        }
        cairo_surface_flush(surface)
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let base = cairo_image_surface_get_data(surface) else {
            throw MapRenderError(.inputMalformed, "\(name): PNG has no pixel data")
        }
        let opaque = format == CAIRO_FORMAT_RGB24
        let src = UnsafeRawPointer(base)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            var o = 0
            for y in 0..<height {
                let row = src + y * stride
                for x in 0..<width {
                    let argb = row.load(fromByteOffset: x * 4, as: UInt32.self)
                    let a = opaque ? 255 : UInt32(argb >> 24)
                    let r = (argb >> 16) & 0xFF, g = (argb >> 8) & 0xFF, b = argb & 0xFF
                    out[o] = unpremultiply(r, a)
                    out[o + 1] = unpremultiply(g, a)
                    out[o + 2] = unpremultiply(b, a)
                    out[o + 3] = UInt8(a)
                    o += 4
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Writes `image` into an ARGB32 surface of the same size, premultiplying.
    private static func fill(_ surface: OpaquePointer, from image: RGBAImage) {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let base = cairo_image_surface_get_data(surface) else { return }
        let dst = UnsafeMutableRawPointer(base)
        image.pixels.withUnsafeBufferPointer { src in
            var i = 0
            for y in 0..<image.height {
                let row = dst + y * stride
                for x in 0..<image.width {
                    let a = UInt32(src[i + 3])
                    let r = premultiply(src[i], a), g = premultiply(src[i + 1], a), b = premultiply(src[i + 2], a)
                    row.storeBytes(of: a << 24 | r << 16 | g << 8 | b, toByteOffset: x * 4, as: UInt32.self)
                    i += 4
                }
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    /// round(c * a / 255)
    @inline(__always)
    private static func premultiply(_ c: UInt8, _ a: UInt32) -> UInt32 {
        (UInt32(c) * a + 127) / 255
    }

    /// round(p * 255 / a), clamped; 0 when fully transparent.
    @inline(__always)
    private static func unpremultiply(_ p: UInt32, _ a: UInt32) -> UInt8 {
        if a == 255 { return UInt8(p) }
        if a == 0 { return 0 }
        return UInt8(min(255, (p * 255 + a / 2) / a))
    }

    // MARK: - Streams

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static func statusText(_ status: cairo_status_t) -> String {
        String(cString: cairo_status_to_string(status))
    }

    private final class StreamReader {
        let data: Data
        var offset: Int
        init(_ data: Data) {
            self.data = data
            self.offset = data.startIndex
        }
    }

    private final class StreamWriter {
        var data = Data()
    }

    private static let readChunk: cairo_read_func_t = { closure, buffer, length in
        guard let closure, let buffer else { return CAIRO_STATUS_READ_ERROR }
        let reader = Unmanaged<StreamReader>.fromOpaque(closure).takeUnretainedValue()
        let count = Int(length)
        guard reader.data.endIndex - reader.offset >= count else { return CAIRO_STATUS_READ_ERROR }
        reader.data.copyBytes(to: buffer, from: reader.offset..<(reader.offset + count))
        reader.offset += count
        return CAIRO_STATUS_SUCCESS
    }

    private static let writeChunk: cairo_write_func_t = { closure, bytes, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let writer = Unmanaged<StreamWriter>.fromOpaque(closure).takeUnretainedValue()
        if let bytes, length > 0 { writer.data.append(bytes, count: Int(length)) }
        return CAIRO_STATUS_SUCCESS
    }
}
