import Foundation
import Testing
@testable import MapRenderCore

/// A signed-distance-field sprite image painted as MapLibre's shader paints it (`SpriteSDF`).
@Suite struct SpriteSDFTests {
    /// A 24-px field of a 7-px disc (alpha 192 at the edge, 32 less per px out), as make_sprite.py.
    static func disc(ratio: Int = 1) -> SpriteImage {
        let n = 24 * ratio
        var rgba = [UInt8](repeating: 0, count: n * n * 4)
        for y in 0..<n { for x in 0..<n {
            let d = (hypot(Double(x) + 0.5 - Double(n) / 2, Double(y) + 0.5 - Double(n) / 2) - 7 * Double(ratio)) / Double(ratio)
            rgba[4 * (y * n + x) + 3] = UInt8(max(0, min(255, (192 - 32 * d).rounded())))
        } }
        return SpriteImage(name: "disc", image: RasterImage(width: n, height: n, rgba: rgba, name: "disc"), pixelRatio: Double(ratio), sdf: true)
    }

    @Test func fillHaloAndSize() {
        let red = SDFPaint(color: RGBA(1, 0, 0), halo: RGBA(1, 1, 1), haloWidth: 2, haloBlur: 0, size: 1)
        let p = Self.disc().sdfPainted(red)
        func px(_ x: Int, _ y: Int) -> [UInt8] { Array(p.image.rgba[(4 * (y * 24 + x))..<(4 * (y * 24 + x) + 4)]) }
        #expect(px(12, 12) == [255, 0, 0, 255])        // inside the disc: the colour
        #expect(px(12, 4) == [255, 229, 229, 255])     // 0.5 px outside: the halo under the fill's smoothed edge
        #expect(px(12, 3) == [255, 255, 255, 230])     // 1.5 px outside: fading at its edge (the shader's smoothstep)
        #expect(px(12, 0)[3] == 0)                      // 4.5 px outside: nothing
        #expect(p.width == 24 && p.height == 24 && !p.sdf)
        // At icon-size 1.5, painted at 36 px for the same CSS size.
        let big = Self.disc().sdfPainted(SDFPaint(color: RGBA(1, 0, 0), halo: .clear, haloWidth: 0, haloBlur: 0, size: 1.5))
        #expect(big.image.width == 36 && big.width == 24)
    }

    /// A large image at a large size is painted within the bound, its CSS size kept.
    @Test func paintedPixelsAreBounded() {
        let paint = SDFPaint(color: RGBA(0, 0, 0), halo: .clear, haloWidth: 0, haloBlur: 0, size: 10)
        let p = Self.disc(ratio: 16).sdfPainted(paint)   // 384 px at size 10 would be 3840 px a side
        #expect(p.image.width * p.image.height <= SpriteImage.maxPaintedPixels)
        #expect(abs(p.width - 24) < 0.01)
    }
}
