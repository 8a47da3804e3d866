import Foundation

/// Perceptual comparison of two bitmaps, for golden-image tests.
///
/// The idea is pixelmatch's (mapbox/pixelmatch), written anew here:
/// - each pixel is blended onto white, and two pixels differ when their distance in the YIQ
///   colour space is above `threshold` (as a fraction of the largest possible distance);
/// - a differing pixel that looks like anti-aliasing (in either image: a brightness slope
///   between two flat areas) is counted apart and forgiven, so a shape moved by a fraction of a
///   pixel or drawn by another rasteriser does not fail a test.
///
///     let result = try ImageDiff.compare(expected, actual, makeDiffImage: true)
///     if result.differentPixels > 0 { try PNGCodec.encode(result.diffImage!).write(to: url) }
///
/// - Complexity: O(width × height), one pass; 9 to 27 neighbour reads only for the pixels that
///   differ. No allocation except the diff image.
public enum ImageDiff {
    public struct Options: Sendable, Equatable {
        /// Matching threshold, 0...1: colours are "equal" while their squared YIQ distance is at
        /// most `maxYIQDelta * threshold²`. Smaller is stricter; 0 means exact colours; black
        /// and white are equal from about 0.966 up.
        public var threshold: Double = 0.1
        /// Count anti-aliased pixels as differences (turns the detection off).
        public var includeAntiAliased: Bool = false
        /// Opacity of image `a` under the marks in the diff image, 0 (white) ... 1 (original grey).
        public var alpha: Double = 0.1
        /// Diff-image colour of anti-aliased pixels.
        public var antiAliasedColor = RGBAImage.Pixel(r: 255, g: 255, b: 0)
        /// Diff-image colour of differing pixels.
        public var diffColor = RGBAImage.Pixel(r: 255, g: 0, b: 0)
        /// If set, the diff-image colour of differing pixels that are darker in `b` than in `a`
        /// (so added and removed ink can be told apart); `diffColor` marks the others.
        public var diffColorAlt: RGBAImage.Pixel? = nil

        public init(
            threshold: Double = 0.1,
            includeAntiAliased: Bool = false,
            alpha: Double = 0.1,
            antiAliasedColor: RGBAImage.Pixel = RGBAImage.Pixel(r: 255, g: 255, b: 0),
            diffColor: RGBAImage.Pixel = RGBAImage.Pixel(r: 255, g: 0, b: 0),
            diffColorAlt: RGBAImage.Pixel? = nil
        ) {
            self.threshold = threshold
            self.includeAntiAliased = includeAntiAliased
            self.alpha = alpha
            self.antiAliasedColor = antiAliasedColor
            self.diffColor = diffColor
            self.diffColorAlt = diffColorAlt
        }
    }

    public struct Result: Sendable, Equatable {
        /// Pixels whose colours differ beyond the threshold and are not forgiven as anti-aliasing.
        public var differentPixels: Int
        /// Pixels whose colours differ beyond the threshold but look like anti-aliasing
        /// (always 0 with `includeAntiAliased`).
        public var antiAliasedPixels: Int
        /// `width * height`.
        public var totalPixels: Int
        /// A faded grey copy of `a` with differing pixels in `diffColor` and anti-aliased ones in
        /// `antiAliasedColor`; nil unless asked for.
        public var diffImage: RGBAImage?

        /// True when no pixel differs (anti-aliased ones aside).
        public var isMatch: Bool { differentPixels == 0 }

        /// `differentPixels / totalPixels`, 0 for an empty image.
        public var differentFraction: Double {
            totalPixels == 0 ? 0 : Double(differentPixels) / Double(totalPixels)
        }
    }

    /// Compares `a` (expected) with `b` (actual).
    ///
    /// - Throws: `MapRenderError` `.inputMalformed` when the sizes differ
    ///   ("image sizes differ: 100x80 vs 120x80") or a pixel buffer has the wrong length;
    ///   `.usage` when `threshold` or `alpha` is outside 0...1.
    public static func compare(
        _ a: RGBAImage,
        _ b: RGBAImage,
        options: Options = Options(),
        makeDiffImage: Bool = false
    ) throws -> Result {
        try validate(a, b, options)
        let total = a.width * a.height

        // Fast path: byte-identical images.
        if a.pixels.withUnsafeBytes({ pa in b.pixels.withUnsafeBytes { pb in
            pa.count == pb.count && (pa.count == 0 || memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0)
        } }) {
            let diffImage = makeDiffImage ? fadedCopy(of: a, alpha: options.alpha) : nil
            return Result(differentPixels: 0, antiAliasedPixels: 0, totalPixels: total, diffImage: diffImage)
        }

        var output: [UInt8] = makeDiffImage ? [UInt8](repeating: 0, count: total * 4) : []
        let counts = a.pixels.withUnsafeBufferPointer { pa in
            b.pixels.withUnsafeBufferPointer { pb in
                output.withUnsafeMutableBufferPointer { out in
                    comparePass(pa, pb, width: a.width, height: a.height, options: options,
                                output: makeDiffImage ? out : nil)
                }
            }
        }
        return Result(
            differentPixels: counts.different,
            antiAliasedPixels: counts.antiAliased,
            totalPixels: total,
            diffImage: makeDiffImage ? RGBAImage(width: a.width, height: a.height, pixels: output) : nil
        )
    }

    /// The largest squared YIQ distance between two colours (pixelmatch's constant); black to
    /// white is about 32857.
    public static let maxYIQDelta: Double = 35215

    // MARK: - Passes

    private static func validate(_ a: RGBAImage, _ b: RGBAImage, _ options: Options) throws {
        for image in [a, b] where image.width < 0 || image.height < 0
            || image.pixels.count != image.width * image.height * 4 {
            throw MapRenderError(.inputMalformed,
                "image buffer has \(image.pixels.count) bytes, expected \(max(0, image.width * image.height * 4)) for \(image.sizeDescription) RGBA")
        }
        guard a.width == b.width && a.height == b.height else {
            throw MapRenderError(.inputMalformed, "image sizes differ: \(a.sizeDescription) vs \(b.sizeDescription)")
        }
        guard (0...1).contains(options.threshold) else {
            throw MapRenderError(.usage, "threshold must be between 0 and 1, got \(options.threshold)")
        }
        guard (0...1).contains(options.alpha) else {
            throw MapRenderError(.usage, "diff image alpha must be between 0 and 1, got \(options.alpha)")
        }
    }

    private static func comparePass(
        _ a: UnsafeBufferPointer<UInt8>,
        _ b: UnsafeBufferPointer<UInt8>,
        width: Int,
        height: Int,
        options: Options,
        output: UnsafeMutableBufferPointer<UInt8>?
    ) -> (different: Int, antiAliased: Int) {
        let maxDelta = maxYIQDelta * options.threshold * options.threshold
        var different = 0
        var antiAliased = 0
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let delta = samePixel(a, i, b, i) ? 0 : colorDelta(a, i, b, i)
                if abs(delta) > maxDelta {
                    if !options.includeAntiAliased
                        && (isAntiAliased(a, x, y, width, height, other: b)
                            || isAntiAliased(b, x, y, width, height, other: a)) {
                        antiAliased += 1
                        if let output { put(options.antiAliasedColor, output, i) }
                    } else {
                        different += 1
                        if let output {
                            // delta < 0: b is darker than a.
                            put(delta < 0 ? (options.diffColorAlt ?? options.diffColor) : options.diffColor, output, i)
                        }
                    }
                } else if let output {
                    putGrey(a, i, alpha: options.alpha, output)
                }
            }
        }
        return (different, antiAliased)
    }

    private static func fadedCopy(of image: RGBAImage, alpha: Double) -> RGBAImage {
        var output = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out in
                for i in stride(from: 0, to: src.count, by: 4) { putGrey(src, i, alpha: alpha, out) }
            }
        }
        return RGBAImage(width: image.width, height: image.height, pixels: output)
    }

    /// Whether the pixel at (x, y) of `image` looks like anti-aliasing: among its 8 neighbours
    /// at most 2 have its brightness, it has both a darker and a brighter neighbour, and the
    /// darkest or the brightest of those sits in a flat area (many equal siblings) in both images.
    /// After "Anti-aliased Pixel and Intensity Slope Detector" (V. Vyšniauskas, 2009).
    private static func isAntiAliased(
        _ image: UnsafeBufferPointer<UInt8>,
        _ x: Int, _ y: Int, _ width: Int, _ height: Int,
        other: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let x0 = max(x - 1, 0), x2 = min(x + 1, width - 1)
        let y0 = max(y - 1, 0), y2 = min(y + 1, height - 1)
        let center = (y * width + x) * 4
        // A pixel on the border has neighbours missing: count one as equal.
        var equal = (x == x0 || x == x2 || y == y0 || y == y2) ? 1 : 0
        var darkest = 0.0, brightest = 0.0   // most negative / positive brightness step to a neighbour
        var darkX = 0, darkY = 0, brightX = 0, brightY = 0

        for nx in x0...x2 {
            for ny in y0...y2 where nx != x || ny != y {
                let step = brightnessDelta(image, center, (ny * width + nx) * 4)
                if step == 0 {
                    equal += 1
                    if equal > 2 { return false }
                } else if step < darkest {
                    darkest = step
                    darkX = nx
                    darkY = ny
                } else if step > brightest {
                    brightest = step
                    brightX = nx
                    brightY = ny
                }
            }
        }
        // No slope through this pixel: it is an extreme itself, not a blend.
        if darkest == 0 || brightest == 0 { return false }

        return (hasManySiblings(image, darkX, darkY, width, height)
                && hasManySiblings(other, darkX, darkY, width, height))
            || (hasManySiblings(image, brightX, brightY, width, height)
                && hasManySiblings(other, brightX, brightY, width, height))
    }

    /// Whether more than 2 of the 8 neighbours of (x, y) are byte-identical to it
    /// (missing neighbours on the border count as one).
    private static func hasManySiblings(
        _ image: UnsafeBufferPointer<UInt8>,
        _ x: Int, _ y: Int, _ width: Int, _ height: Int
    ) -> Bool {
        let x0 = max(x - 1, 0), x2 = min(x + 1, width - 1)
        let y0 = max(y - 1, 0), y2 = min(y + 1, height - 1)
        let center = (y * width + x) * 4
        var equal = (x == x0 || x == x2 || y == y0 || y == y2) ? 1 : 0
        for nx in x0...x2 {
            for ny in y0...y2 where nx != x || ny != y {
                if samePixel(image, center, image, (ny * width + nx) * 4) {
                    equal += 1
                    if equal > 2 { return true }
                }
            }
        }
        return false
    }

    // MARK: - Pixel helpers

    @inline(__always)
    private static func samePixel(_ a: UnsafeBufferPointer<UInt8>, _ i: Int, _ b: UnsafeBufferPointer<UInt8>, _ j: Int) -> Bool {
        a[i] == b[j] && a[i + 1] == b[j + 1] && a[i + 2] == b[j + 2] && a[i + 3] == b[j + 3]
    }

    /// Squared YIQ distance between pixel `i` of `a` and pixel `j` of `b`, both blended onto
    /// white; negative when `a` is brighter (that is, `b` is darker).
    @inline(__always)
    private static func colorDelta(_ a: UnsafeBufferPointer<UInt8>, _ i: Int, _ b: UnsafeBufferPointer<UInt8>, _ j: Int) -> Double {
        let (r1, g1, b1) = blendedOnWhite(a, i)
        let (r2, g2, b2) = blendedOnWhite(b, j)
        let y1 = luma(r1, g1, b1), y2 = luma(r2, g2, b2)
        let dy = y1 - y2
        let di = inPhase(r1, g1, b1) - inPhase(r2, g2, b2)
        let dq = quadrature(r1, g1, b1) - quadrature(r2, g2, b2)
        let delta = 0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq
        return y1 > y2 ? -delta : delta
    }

    /// Brightness (Y) of pixel `i` minus that of pixel `j`, both of `image`, blended onto white.
    @inline(__always)
    private static func brightnessDelta(_ image: UnsafeBufferPointer<UInt8>, _ i: Int, _ j: Int) -> Double {
        let (r1, g1, b1) = blendedOnWhite(image, i)
        let (r2, g2, b2) = blendedOnWhite(image, j)
        return luma(r1, g1, b1) - luma(r2, g2, b2)
    }

    @inline(__always)
    private static func blendedOnWhite(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> (Double, Double, Double) {
        let r = Double(p[i]), g = Double(p[i + 1]), b = Double(p[i + 2])
        let alpha = p[i + 3]
        if alpha == 255 { return (r, g, b) }
        let k = Double(alpha) / 255
        return (255 + (r - 255) * k, 255 + (g - 255) * k, 255 + (b - 255) * k)
    }

    /// Diff-image background: the brightness of `src` pixel `i`, faded towards white.
    @inline(__always)
    private static func putGrey(_ src: UnsafeBufferPointer<UInt8>, _ i: Int, alpha: Double, _ out: UnsafeMutableBufferPointer<UInt8>) {
        let y = luma(Double(src[i]), Double(src[i + 1]), Double(src[i + 2]))
        let v = 255 + (y - 255) * alpha * Double(src[i + 3]) / 255
        let grey = UInt8(min(255, max(0, v.rounded())))
        put(RGBAImage.Pixel(r: grey, g: grey, b: grey), out, i)
    }

    @inline(__always)
    private static func put(_ c: RGBAImage.Pixel, _ out: UnsafeMutableBufferPointer<UInt8>, _ i: Int) {
        out[i] = c.r
        out[i + 1] = c.g
        out[i + 2] = c.b
        out[i + 3] = 255
    }

    // NTSC YIQ, coefficients from Kotsarenko & Ramos (2010).
    @inline(__always) private static func luma(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.29889531 + g * 0.58662247 + b * 0.11448223
    }
    @inline(__always) private static func inPhase(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.59597799 - g * 0.27417610 - b * 0.32180189
    }
    @inline(__always) private static func quadrature(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.21147017 - g * 0.52261711 + b * 0.31114694
    }
}
