import Foundation
import Testing
import MapRenderCairo
import MapRenderCore

@Suite struct ComparePNGCodecTests {
    /// A fresh directory under the system temporary directory, removed after `body`.
    private func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    /// PNG colour type from the IHDR chunk: 2 = RGB, 6 = RGBA.
    private func colourType(_ png: Data) -> UInt8 { png[png.startIndex + 25] }

    @Test func opaqueRoundTripIsExact() throws {
        var image = RGBAImage(width: 37, height: 23)
        for y in 0..<23 {
            for x in 0..<37 {
                image[x, y] = RGBAImage.Pixel(r: UInt8((x * 7) % 256), g: UInt8((y * 11) % 256), b: UInt8((x * y) % 256))
            }
        }
        try withTemporaryDirectory { dir in
            let png = try PNGCodec.encode(image)
            #expect(colourType(png) == 2)          // cairo writes RGB for opaque surfaces...
            let url = dir.appendingPathComponent("opaque.png")
            try png.write(to: url)
            let decoded = try PNGCodec.decode(path: url.path)   // ...and reads it back as RGB24
            #expect(decoded == image)
        }
    }

    @Test func translucentRoundTripIsWithinPremultiplicationRounding() throws {
        // Every channel value at a spread of alphas.
        let alphas: [UInt8] = [1, 2, 17, 64, 127, 128, 200, 254, 255]
        var image = RGBAImage(width: 256, height: alphas.count)
        for (y, a) in alphas.enumerated() {
            for c in 0..<256 {
                image[c, y] = RGBAImage.Pixel(r: UInt8(c), g: UInt8(255 - c), b: UInt8((c * 5) % 256), a: a)
            }
        }
        let png = try PNGCodec.encode(image)
        #expect(colourType(png) == 6)
        let decoded = try PNGCodec.decode(data: png)
        #expect(decoded.width == 256 && decoded.height == alphas.count)

        var worst = [Int](repeating: 0, count: alphas.count)
        for (y, a) in alphas.enumerated() {
            // |error| <= 127.5 / a + 0.5: premultiplied values are 255 / a apart in straight terms.
            let tolerance = Int(127.5 / Double(a) + 0.5)
            for x in 0..<256 {
                let p = image[x, y], q = decoded[x, y]
                #expect(q.a == p.a)
                for (u, v) in [(p.r, q.r), (p.g, q.g), (p.b, q.b)] {
                    let error = abs(Int(u) - Int(v))
                    worst[y] = max(worst[y], error)
                    #expect(error <= tolerance, "alpha \(a): \(p) came back as \(q)")
                }
            }
        }
        #expect(worst.last == 0)                 // alpha 255 is exact
        #expect(worst[alphas.firstIndex(of: 128)!] <= 1)
        // A second round trip changes nothing.
        #expect(try PNGCodec.decode(data: PNGCodec.encode(decoded)) == decoded)
    }

    @Test func fullyTransparentBecomesTransparentBlack() throws {
        let image = RGBAImage(width: 2, height: 2, fill: RGBAImage.Pixel(r: 10, g: 200, b: 30, a: 0))
        let decoded = try PNGCodec.decode(data: PNGCodec.encode(image))
        #expect(decoded == RGBAImage(width: 2, height: 2, fill: .transparent))
        // Still the same image to ImageDiff.
        #expect(try ImageDiff.compare(image, decoded).differentPixels == 0)
    }

    @Test func nonPNGFileIsMalformed() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("x.png")
            try Data("<svg/>\n".utf8).write(to: url)
            #expect(throws: MapRenderError(.inputMalformed, "\(url.path): not a PNG file")) {
                try PNGCodec.decode(path: url.path)
            }
        }
    }

    @Test func truncatedPNGIsMalformed() throws {
        let png = try PNGCodec.encode(RGBAImage(width: 20, height: 20, fill: .white))
        let error = try #require(throws: MapRenderError.self) {
            try PNGCodec.decode(data: png.prefix(40), name: "cut.png")
        }
        #expect(error.kind == .inputMalformed)
        #expect(error.message.hasPrefix("cut.png: corrupt PNG"))
    }

    @Test func missingFileIsUnreadable() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("missing.png").path
            #expect(throws: MapRenderError(.inputUnreadable, "\(path): no such file")) {
                try PNGCodec.decode(path: path)
            }
        }
    }

    @Test func emptyImageCannotBeEncoded() {
        #expect(throws: MapRenderError.self) { try PNGCodec.encode(RGBAImage(width: 0, height: 3)) }
    }
}
