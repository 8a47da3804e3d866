import CImageCodec
import Foundation

/// maprender's one image codec, over the C module `CImageCodec` (libpng, libjpeg-turbo, libwebp,
/// zlib): one header check (`probe`), one size policy (`Limits`, applied from the header before
/// any decoder allocates), one decoder to straight RGBA (raster tiles, `compare`, the tests'
/// `PNGCodec`), and PNG encoding of straight RGBA. The map itself is encoded from Cairo's surface
/// by the same module (`mr_png_write_argb32`, `mr_jpeg_write_argb32`, `mr_webp_write_argb32`).
///
/// ```swift
/// let h = try ImageCodec.probe(bytes)                     // .png, 256 x 256, no pixel decoded
/// let img = try ImageCodec.decode(bytes, limits: .init(maxSide: 4096))
/// ```
public enum ImageCodec {
    public enum Format: Int32, Sendable {
        case png = 1, jpeg = 2, webp = 3
        public var name: String { String(cString: mr_image_format_name(rawValue)) }
    }

    /// What an image's header says: its format and size.
    public struct Header: Sendable, Equatable {
        public var format: Format
        public var width: Int
        public var height: Int
        /// Bytes of its decoded RGBA pixels.
        public var decodedBytes: Int { width * height * 4 }
    }

    /// The size policy: each side at most `maxSide`, and at most `maxPixels` pixels (nil: no
    /// such limit; sides are capped at 2^24 whatever is asked).
    public struct Limits: Sendable {
        public var maxSide: Int?
        public var maxPixels: Int?
        public init(maxSide: Int? = nil, maxPixels: Int? = nil) { self.maxSide = maxSide; self.maxPixels = maxPixels }
        /// For an image that is not a tile: 2^28 pixels (16384 x 16384, 1 GiB of RGBA).
        public static let image = Limits(maxPixels: 1 << 28)
    }

    /// Why an image was not decoded.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The header's size breaks the limits (nothing was allocated for it).
        case tooLarge(String)
        /// Not an image, or its data is damaged.
        case malformed(String)
        public var description: String {
            switch self { case .tooLarge(let s), .malformed(let s): return s }
        }
    }

    /// The decoded image: straight (not premultiplied) RGBA, 8 bits a channel, rows packed.
    public struct Decoded: Sendable {
        public var width: Int
        public var height: Int
        public var rgba: [UInt8]
    }

    /// The format and size from the header alone (PNG's IHDR, JPEG's frame header, WebP's).
    public static func probe(_ data: Data) throws -> Header {
        var format: Int32 = 0
        var w: UInt = 0, h: UInt = 0
        var err = [CChar](repeating: 0, count: 256)
        let rc = data.withUnsafeBytes { buf in
            mr_image_probe(buf.bindMemory(to: UInt8.self).baseAddress, buf.count, &format, &w, &h, &err, err.count)
        }
        guard rc == 0, let f = Format(rawValue: format) else { throw Failure.malformed(String(cString: err)) }
        return Header(format: f, width: Int(w), height: Int(h))
    }

    /// `nil` when `header` is within `limits`, else the reason ("PNG is 8192x8192 pixels, outside 1x1...4096x4096").
    public static func sizeProblem(_ header: Header, _ limits: Limits) -> String? {
        var err = [CChar](repeating: 0, count: 256)
        let rc = mr_image_size_check(header.format.rawValue, UInt(header.width), UInt(header.height),
                                     UInt(limits.maxSide ?? 0), UInt64(limits.maxPixels ?? 0), &err, err.count)
        return rc == 0 ? nil : String(cString: err)
    }

    /// Decodes PNG, JPEG or WebP bytes. `strict`: a PNG's zlib Adler-32 is checked too (the tile
    /// path leaves it out: every chunk's CRC-32 covers the same bytes).
    ///
    /// - Throws: `Failure.tooLarge` from the header alone; `Failure.malformed` for anything else.
    public static func decode(_ data: Data, limits: Limits, strict: Bool = false) throws -> Decoded {
        // The header and the policy first, to tell "too large" from "damaged".
        let header = try probe(data)
        if let why = sizeProblem(header, limits) { throw Failure.tooLarge(why) }
        // Straight into the array's storage: no buffer of the decoder's own to copy from.
        let count = header.decodedBytes
        var w: Int32 = 0, h: Int32 = 0
        var err = [CChar](repeating: 0, count: 256)
        var rc: Int32 = 1
        let rgba = [UInt8](unsafeUninitializedCapacity: count) { buf, n in
            rc = data.withUnsafeBytes { src in
                mr_image_decode_into(src.bindMemory(to: UInt8.self).baseAddress, src.count, UInt(limits.maxSide ?? 0),
                                     UInt64(limits.maxPixels ?? 0), strict ? MR_DECODE_STRICT : 0, buf.baseAddress, count,
                                     &w, &h, &err, err.count)
            }
            n = rc == 0 && Int(w) * Int(h) * 4 == count ? count : 0
        }
        guard rc == 0 else { throw Failure.malformed(String(cString: err)) }
        guard rgba.count == count else { throw Failure.malformed("the decoder's size differs from the header's") }
        return Decoded(width: Int(w), height: Int(h), rgba: rgba)
    }

    /// The zlib level of every PNG maprender writes. Level 3 rather than zlib's default 6: over
    /// the 36 README pictures (maps of flat fills, text, raster tiles) it took 0.54 of level 6's
    /// time for files 7% larger; level 1 saved little more (0.50) for 10% larger, and Z_RLE
    /// (0.42) made maps with raster tiles twice as large. PNG encoding was a sixth of a served
    /// map's time and of a choropleth's.
    public static let pngLevel: Int32 = 3

    /// Straight RGBA (rows packed) as PNG: RGB when every pixel is opaque, else RGBA; a fully
    /// transparent pixel's colour is written as 0. The SUB filter at zlib `level`, as the map's
    /// own PNG writer.
    public static func encodePNG(rgba: [UInt8], width: Int, height: Int, level: Int32 = pngLevel) throws -> Data {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max),
              rgba.count == width * height * 4 else {
            throw Failure.malformed("\(rgba.count) bytes for a \(width)x\(height) RGBA image")
        }
        let sink = PNGSink()
        let rc = withExtendedLifetime(sink) {
            rgba.withUnsafeBufferPointer { p in
                mr_png_write_rgba(p.baseAddress, Int32(width), Int32(height), level, pngSinkAppend,
                                  Unmanaged.passUnretained(sink).toOpaque())
            }
        }
        guard rc == 0 else { throw Failure.malformed("libpng could not encode the image") }
        return sink.data
    }

    private final class PNGSink { var data = Data() }

    private static let pngSinkAppend: mr_png_write_fn = { closure, bytes, length in
        guard let closure else { return 1 }
        let sink = Unmanaged<PNGSink>.fromOpaque(closure).takeUnretainedValue()
        if let bytes, length > 0 { sink.data.append(bytes, count: length) }
        return 0
    }
}
