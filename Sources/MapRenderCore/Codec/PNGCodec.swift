import Foundation

/// Reads and writes PNG files as ``RGBAImage`` (straight alpha) through the one image codec
/// (`ImageCodec`: the decoder raster tiles use, in its strict mode, and libpng's writer).
///
///     let expected = try PNGCodec.decode(path: "golden.png")
///     try PNGCodec.encode(actual).write(to: URL(fileURLWithPath: "actual.png"))
///
/// Pixels round-trip exactly, semi-transparent ones too; a fully transparent pixel is written
/// (and so read back) as (0, 0, 0, 0), its colour having no meaning.
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
    /// the chunks and the header's size (`PNGHeader.read`), so a failure to decode is the
    /// compressed data. Images past `ImageCodec.Limits.image` are refused from the header.
    ///
    /// - Throws: `MapRenderError` `.inputMalformed` ("NAME: not a PNG file", "NAME: corrupt PNG: ...",
    ///   "NAME: PNG is WxH = N pixels, more than the limit of M").
    public static func decode(data: Data, name: String = "PNG data", sizeChecked: Bool = false) throws -> RGBAImage {
        guard PNGHeader.hasSignature(data) else {
            throw MapRenderError(.inputMalformed, "\(name): not a PNG file")
        }
        do {
            let d = try ImageCodec.decode(data, limits: .image, strict: true)
            return RGBAImage(width: d.width, height: d.height, pixels: d.rgba)
        } catch ImageCodec.Failure.tooLarge(let why) {
            throw MapRenderError(.inputMalformed, "\(name): \(why)")
        } catch let f as ImageCodec.Failure {
            throw MapRenderError(.inputMalformed, "\(name): corrupt PNG: "
                + (sizeChecked ? "its image data cannot be decoded (damaged compressed data)" : f.description))
        }
    }

    /// Encodes `image` as PNG bytes (8 bits per channel; RGB when every pixel is opaque, RGBA otherwise).
    ///
    /// - Throws: `MapRenderError` `.inputMalformed` for a buffer of the wrong length or an empty
    ///   image, `.output` when it cannot be encoded.
    public static func encode(_ image: RGBAImage) throws -> Data {
        guard image.width > 0, image.height > 0 else {
            throw MapRenderError(.inputMalformed, "cannot encode an empty \(image.sizeDescription) image as PNG")
        }
        guard image.pixels.count == image.width * image.height * 4 else {
            throw MapRenderError(.inputMalformed,
                "image buffer has \(image.pixels.count) bytes, expected \(image.width * image.height * 4) for \(image.sizeDescription) RGBA")
        }
        do {
            return try ImageCodec.encodePNG(rgba: image.pixels, width: image.width, height: image.height)
        } catch {
            throw MapRenderError(.output, "cannot encode PNG: \(error)")
        }
    }
}
