import Foundation

/// A signed-distance-field sprite image (`"sdf": true`) painted as MapLibre's symbol shader paints
/// it: the alpha channel is a distance, 0.75 at the shape's edge and falling 1/8 per CSS px of
/// the image outward (MapLibre's `SDF_PX` 8); `icon-color` fills where it is past the edge, and
/// `icon-halo-color` fills past the edge moved out by `icon-halo-width`, softened by
/// `icon-halo-blur`, under the fill. Edges are smoothed over MapLibre's gamma (0.105 / size).
///
/// ```swift
/// let red = image.sdfPainted(SDFPaint(color: RGBA(1, 0, 0), halo: .white, haloWidth: 2, haloBlur: 0, size: 1.5))
/// ```
public struct SDFPaint: Hashable, Sendable {
    public var color: RGBA
    public var halo: RGBA
    /// CSS px.
    public var haloWidth: Double
    public var haloBlur: Double
    /// `icon-size`: the image's scale on the map; the field is sampled at that size.
    public var size: Double

    public init(color: RGBA, halo: RGBA, haloWidth: Double, haloBlur: Double, size: Double) {
        self.color = color; self.halo = halo; self.haloWidth = haloWidth; self.haloBlur = haloBlur; self.size = size
    }
}

extension SpriteImage {
    /// The most pixels one painted signed-distance-field icon has (4 Mpx, 16 MiB).
    public static let maxPaintedPixels = 4 << 20

    /// The field painted with `p`, as a plain image (straight RGBA) of the size it is drawn at
    /// (its CSS size times `p.size`, times its pixel ratio), so edges are drawn at the map's
    /// resolution rather than stretched.
    /// - Complexity: O(output pixels).
    public func sdfPainted(_ p: SDFPaint) -> SpriteImage {
        let k = min(max(p.size, 0.01), 10)
        // At most `maxPaintedPixels`: a large image at a large size is painted smaller (and stretched).
        let fit = min(1, (Double(Self.maxPaintedPixels) / (Double(image.width) * k * Double(image.height) * k)).squareRoot())
        let ow = max(1, Int((Double(image.width) * k * fit).rounded())), oh = max(1, Int((Double(image.height) * k * fit).rounded()))
        let src = image.rgba, iw = image.width, ih = image.height
        // MapLibre: gamma in field units over the size (a CSS px of screen is 1/8 / size).
        let edge = 0.105 / k
        let fillBuff = 0.75
        let hasHalo = p.halo.a > 0 && (p.haloWidth > 0 || p.haloBlur > 0)
        let haloBuff = (6 - p.haloWidth / k) / 8
        let haloGamma = (p.haloBlur * 1.19 / 8 + 0.105) / k
        func smooth(_ lo: Double, _ hi: Double, _ x: Double) -> Double {
            guard hi > lo else { return x >= hi ? 1 : 0 }
            let t = min(max((x - lo) / (hi - lo), 0), 1)
            return t * t * (3 - 2 * t)
        }
        func alpha(_ x: Int, _ y: Int) -> Double {
            Double(src[4 * (min(max(y, 0), ih - 1) * iw + min(max(x, 0), iw - 1)) + 3]) / 255
        }
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        for y in 0..<oh {
            // The output pixel's centre in source pixels (bilinear between source centres).
            let sy = (Double(y) + 0.5) / Double(oh) * Double(ih) - 0.5
            let y0 = Int(sy.rounded(.down)), fy = sy - Double(y0)
            for x in 0..<ow {
                let sx = (Double(x) + 0.5) / Double(ow) * Double(iw) - 0.5
                let x0 = Int(sx.rounded(.down)), fx = sx - Double(x0)
                let d = (alpha(x0, y0) * (1 - fx) + alpha(x0 + 1, y0) * fx) * (1 - fy)
                    + (alpha(x0, y0 + 1) * (1 - fx) + alpha(x0 + 1, y0 + 1) * fx) * fy
                // Premultiplied: the fill over the halo.
                let fa = smooth(fillBuff - edge, fillBuff + edge, d) * p.color.a
                var r = p.color.r * fa, g = p.color.g * fa, b = p.color.b * fa, a = fa
                if hasHalo {
                    let ha = smooth(haloBuff - haloGamma, haloBuff + haloGamma, d) * p.halo.a * (1 - fa)
                    r += p.halo.r * ha; g += p.halo.g * ha; b += p.halo.b * ha; a += ha
                }
                let i = 4 * (y * ow + x)
                if a > 0 {
                    out[i] = UInt8((min(r / a, 1) * 255).rounded())
                    out[i + 1] = UInt8((min(g / a, 1) * 255).rounded())
                    out[i + 2] = UInt8((min(b / a, 1) * 255).rounded())
                    out[i + 3] = UInt8((min(a, 1) * 255).rounded())
                }
            }
        }
        var painted = self
        painted.image = RasterImage(width: ow, height: oh, rgba: out, name: image.name + " (sdf)")
        painted.pixelRatio = pixelRatio * Double(ow) / Double(image.width)   // the same CSS size
        painted.name = name + " sdf \(p.color) \(p.halo) \(p.haloWidth) \(p.haloBlur) \(p.size)"
        painted.sdf = false
        return painted
    }
}
