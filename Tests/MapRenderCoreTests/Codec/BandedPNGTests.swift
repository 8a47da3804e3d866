import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// The PNG writer deflates bands of rows on the threads at once (png_encode.c). Checked by libpng's
/// decoder with zlib's Adler-32 (`strict`), an implementation independent of the writer, over
/// generated images of every shape: one band, many bands, a last band of one row, with and
/// without alpha, and through both sources (straight RGBA and Cairo's premultiplied ARGB32).
@Suite struct BandedPNGTests {
    /// Pixels with runs, gradients and noise (what maps hold), some translucent or transparent
    /// unless `opaque`.
    static func image(width: Int, height: Int, opaque: Bool, rng: inout SeededRandom) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let run = Int(rng.next() % 40) + 1
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                let noisy = rng.next() % 7 == 0
                rgba[i] = noisy ? UInt8(truncatingIfNeeded: rng.next()) : UInt8((x / run * 37) & 0xFF)
                rgba[i + 1] = UInt8((y * 3 + x) & 0xFF)
                rgba[i + 2] = noisy ? UInt8(truncatingIfNeeded: rng.next()) : 200
                rgba[i + 3] = opaque ? 255 : [0, 255, 255, 128, 1][Int(rng.next() % 5)]
            }
        }
        return rgba
    }

    /// What a PNG of `rgba` decodes to: a fully transparent pixel's colour is 0.
    static func expected(_ rgba: [UInt8]) -> [UInt8] {
        var e = rgba
        for i in stride(from: 0, to: e.count, by: 4) where e[i + 3] == 0 { e[i] = 0; e[i + 1] = 0; e[i + 2] = 0 }
        return e
    }

    /// Image data chunks in a PNG.
    static func idatCount(_ png: Data) -> Int {
        let b = [UInt8](png)
        var at = 8, count = 0
        while at + 8 <= b.count {
            let length = Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
            if String(decoding: b[at + 4..<at + 8], as: UTF8.self) == "IDAT" { count += 1 }
            at += 12 + length
        }
        return count
    }

    @Test func generatedImagesRoundTripThroughLibpng() throws {
        var rng = SeededRandom(seed: 44)
        let rowsOf = { (w: Int, opaque: Bool) in ImageCodec.pngBandRows(width: w, opaque: opaque) }
        var shapes: [(Int, Int)] = [(1, 1), (1, 700), (3, 2), (1024, 768), (5000, 3)]
        // A last band of exactly one row, and one band exactly full.
        shapes.append((700, rowsOf(700, true) * 3 + 1))
        shapes.append((700, rowsOf(700, true) * 2))
        for _ in 0..<12 { shapes.append((Int(rng.next() % 900) + 1, Int(rng.next() % 900) + 1)) }
        var multiBand = 0
        for (w, h) in shapes {
            for opaque in [true, false] {
                let rgba = Self.image(width: w, height: h, opaque: opaque, rng: &rng)
                let png = try ImageCodec.encodePNG(rgba: rgba, width: w, height: h)
                let decoded = try ImageCodec.decode(png, limits: .image, strict: true)
                #expect(decoded.width == w && decoded.height == h)
                #expect(decoded.rgba == Self.expected(rgba), "\(w)x\(h) opaque \(opaque)")
                // RGB when every pixel is opaque (a tiny translucent image may happen to be).
                let rgb = stride(from: 3, to: rgba.count, by: 4).allSatisfy { rgba[$0] == 255 }
                #expect(png[25] == (rgb ? 2 : 6))
                #expect(opaque == false || rgb)
                let bands = (h + rowsOf(w, rgb) - 1) / rowsOf(w, rgb)
                #expect(Self.idatCount(png) == bands)
                if bands > 1 { multiBand += 1 }
            }
        }
        #expect(multiBand >= 6)
    }

    /// One thread or every core: the same bytes (the bands are cut by the image's size alone).
    @Test func sameBytesAtAnyThreadCount() throws {
        var rng = SeededRandom(seed: 7)
        let rgba = Self.image(width: 1024, height: 768, opaque: false, rng: &rng)
        let forks = Work.Forks()
        let parallel = try Work.$forks.withValue(forks) { try ImageCodec.encodePNG(rgba: rgba, width: 1024, height: 768) }
        #expect(forks.value == 1)
        let serial = try Work.$serial.withValue(true) { try ImageCodec.encodePNG(rgba: rgba, width: 1024, height: 768) }
        #expect(parallel == serial)
    }

    /// Cairo's premultiplied ARGB32 (native-endian words): un-premultiplied with rounding as Cairo
    /// does, the same as the straight RGBA it came from to within that rounding, exact where opaque.
    @Test func premultipliedSourceIsUnpremultiplied() throws {
        var rng = SeededRandom(seed: 3)
        let (w, h) = (300, 2000)
        let rgba = Self.image(width: w, height: h, opaque: false, rng: &rng)
        let stride = w * 4 + 16
        var words = [UInt32](repeating: 0, count: stride / 4 * h)
        for y in 0..<h {
            for x in 0..<w {
                let i = 4 * (y * w + x), a = UInt32(rgba[i + 3])
                let p = { (c: UInt8) in (UInt32(c) * a + 127) / 255 }
                words[y * stride / 4 + x] = a << 24 | p(rgba[i]) << 16 | p(rgba[i + 1]) << 8 | p(rgba[i + 2])
            }
        }
        let png = try words.withUnsafeBytes { raw in
            try ImageCodec.encodePNG(argb32: raw.bindMemory(to: UInt8.self).baseAddress!, width: w, height: h, stride: stride)
        }
        let decoded = try ImageCodec.decode(png, limits: .image, strict: true)
        let expected = Self.expected(rgba)
        var worst = 0
        for i in 0..<expected.count {
            let d = abs(Int(decoded.rgba[i]) - Int(expected[i]))
            if expected[i | 3] == 255 { #expect(d == 0) }
            worst = max(worst, expected[i | 3] >= 128 ? d : 0)
        }
        #expect(worst <= 1)
        #expect(Self.idatCount(png) > 1)
    }

    @Test func refusesImpossibleSizes() {
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.encodePNG(rgba: [0, 0, 0], width: 1, height: 1) }
        #expect(throws: ImageCodec.Failure.self) { try ImageCodec.encodePNG(rgba: [], width: 0, height: 0) }
    }
}
