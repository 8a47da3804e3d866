/// A bitmap in memory: 8-bit red, green, blue, alpha per pixel, straight (not premultiplied)
/// alpha, rows top to bottom, no padding between rows.
///
///     var image = RGBAImage(width: 2, height: 1, fill: .white)
///     image[1, 0] = RGBAImage.Pixel(r: 255, g: 0, b: 0)
///     image.pixels   // [255, 255, 255, 255,  255, 0, 0, 255]
///
/// Two images are equal when their sizes and bytes are equal; fully transparent pixels with
/// different colour bytes are therefore unequal (``ImageDiff`` sees them as the same).
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// `width * height * 4` bytes: R, G, B, A for each pixel, row-major.
    public var pixels: [UInt8]

    /// One pixel's four channels, straight alpha.
    public struct Pixel: Sendable, Equatable, Hashable, CustomStringConvertible {
        public var r: UInt8
        public var g: UInt8
        public var b: UInt8
        public var a: UInt8

        public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
            self.r = r
            self.g = g
            self.b = b
            self.a = a
        }

        public static let white = Pixel(r: 255, g: 255, b: 255)
        public static let black = Pixel(r: 0, g: 0, b: 0)
        public static let transparent = Pixel(r: 0, g: 0, b: 0, a: 0)

        public var description: String { "rgba(\(r), \(g), \(b), \(a))" }
    }

    /// Wraps existing bytes. `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0, "negative image size \(width)x\(height)")
        precondition(pixels.count == width * height * 4,
                     "\(pixels.count) bytes for a \(width)x\(height) RGBA image (expected \(width * height * 4))")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image filled with one colour (transparent by default).
    public init(width: Int, height: Int, fill: Pixel = .transparent) {
        precondition(width >= 0 && height >= 0, "negative image size \(width)x\(height)")
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        if fill != .transparent {
            for i in stride(from: 0, to: bytes.count, by: 4) {
                bytes[i] = fill.r
                bytes[i + 1] = fill.g
                bytes[i + 2] = fill.b
                bytes[i + 3] = fill.a
            }
        }
        self.width = width
        self.height = height
        self.pixels = bytes
    }

    /// The pixel at column `x`, row `y` (both from 0, top left).
    public subscript(x: Int, y: Int) -> Pixel {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            let i = (y * width + x) * 4
            return Pixel(r: pixels[i], g: pixels[i + 1], b: pixels[i + 2], a: pixels[i + 3])
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            let i = (y * width + x) * 4
            pixels[i] = newValue.r
            pixels[i + 1] = newValue.g
            pixels[i + 2] = newValue.b
            pixels[i + 3] = newValue.a
        }
    }

    /// `"WIDTHxHEIGHT"`, as used in messages.
    public var sizeDescription: String { "\(width)x\(height)" }
}
