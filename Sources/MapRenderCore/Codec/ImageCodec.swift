import CImageCodec
import Foundation
import Synchronization

/// maprender's one image codec, over the C module `CImageCodec` (libpng, libjpeg-turbo, libwebp,
/// zlib): one header check (`probe`), one size policy (`Limits`, applied from the header before
/// any decoder allocates), one decoder to straight RGBA (raster tiles, `compare`, the tests'
/// `PNGCodec`), and PNG encoding of straight RGBA. The map itself is encoded from Cairo's surface
/// by the same module (`encodePNG(argb32:...)`, `mr_jpeg_write_argb32`, `mr_webp_write_argb32`).
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
        guard width > 0, height > 0, width <= 1 << 24, height <= 1 << 24, rgba.count == width * height * 4 else {
            throw Failure.malformed("\(rgba.count) bytes for a \(width)x\(height) RGBA image")
        }
        return try rgba.withUnsafeBufferPointer { p in
            let base = p.baseAddress!
            let opaque = mr_rgba_is_opaque(base, Int32(width), Int32(height)) != 0
            return try encodePNG(width: width, height: height, opaque: opaque, level: level) { band, rows, out in
                mr_png_encode_band_rgba(base, Int32(width), Int32(height), opaque ? 1 : 0, level, band, rows, out)
            }
        }
    }

    /// Cairo's ARGB32 image (premultiplied, native-endian 32-bit pixels, rows `stride` bytes apart)
    /// as PNG: RGB when every pixel is opaque, else RGBA un-premultiplied. The map's PNG writer.
    public static func encodePNG(argb32 pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
                                 level: Int32 = pngLevel) throws -> Data {
        guard width > 0, height > 0, width <= 1 << 24, height <= 1 << 24, stride >= width * 4 else {
            throw Failure.malformed("a \(width)x\(height) image with rows \(stride) bytes apart")
        }
        let opaque = mr_argb32_is_opaque(pixels, Int32(width), Int32(height), Int32(stride)) != 0
        return try encodePNG(width: width, height: height, opaque: opaque, level: level) { band, rows, out in
            mr_png_encode_band_argb32(pixels, Int32(width), Int32(height), Int32(stride), opaque ? 1 : 0, level, band, rows, out)
        }
    }

    /// The bands of png_encode.c deflated on the threads as they come free (in order on this one
    /// under `Work.serial`), then written in order. Their count comes from the image's size alone,
    /// so the bytes are the same at any thread count.
    private static func encodePNG(width: Int, height: Int, opaque: Bool, level: Int32,
                                  band encode: (Int32, Int32, UnsafeMutablePointer<mr_png_band>) -> Int32) throws -> Data {
        let rows = pngBandRows(width: width, opaque: opaque)
        let count = (height + rows - 1) / rows
        let bands = UnsafeMutableBufferPointer<mr_png_band>.allocate(capacity: count)
        bands.initialize(repeating: mr_png_band())
        defer {
            for k in 0..<count { mr_png_band_free(&bands[k]) }
            bands.deallocate()
        }
        let failed = Atomic<Int>(0)
        Work.perform(iterations: count) { k in
            if encode(Int32(k), Int32(rows), bands.baseAddress! + k) != 0 { failed.add(1, ordering: .relaxed) }
        }
        guard failed.load(ordering: .relaxed) == 0 else { throw Failure.malformed("zlib could not compress the image") }
        let sink = PNGSink()
        sink.data.reserveCapacity(bands.reduce(64) { $0 + $1.length + 12 })
        let rc = withExtendedLifetime(sink) {
            mr_png_assemble(Int32(width), Int32(height), opaque ? 1 : 0, level, bands.baseAddress, Int32(count), pngSinkAppend,
                            Unmanaged.passUnretained(sink).toOpaque())
        }
        guard rc == 0 else { throw Failure.malformed("the PNG could not be written") }
        return sink.data
    }

    /// Rows in each band of a PNG `width` pixels wide (the last band may have fewer).
    static func pngBandRows(width: Int, opaque: Bool) -> Int { Int(mr_png_band_rows(Int32(width), opaque ? 1 : 0)) }

    private final class PNGSink { var data = Data() }

    private static let pngSinkAppend: mr_png_write_fn = { closure, bytes, length in
        guard let closure else { return 1 }
        let sink = Unmanaged<PNGSink>.fromOpaque(closure).takeUnretainedValue()
        if let bytes, length > 0 { sink.data.append(bytes, count: length) }
        return 0
    }
}
