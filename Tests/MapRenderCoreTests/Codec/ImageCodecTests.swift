import Foundation
import Testing
@testable import MapRenderCore

/// PNG and JPEG bytes written by hand, independent of the codec: PNG with stored (uncompressed)
/// deflate blocks and a bit-by-bit CRC, JPEG as a run of markers.
private enum Hand {
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~c
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        return be32(UInt32(data.count)) + t + data + be32(crc(t + data))
    }

    /// An 8-bit RGBA PNG of `pixels` (rows packed), filter 0, one stored deflate block.
    static func png(width: Int, height: Int, pixels: [UInt8]) -> Data {
        var raw: [UInt8] = []
        for y in 0..<height { raw.append(0); raw += pixels[(y * width * 4)..<((y + 1) * width * 4)] }
        var z: [UInt8] = [0x78, 0x01, 1, UInt8(raw.count & 0xFF), UInt8(raw.count >> 8),
                          UInt8(~raw.count & 0xFF), UInt8((~raw.count >> 8) & 0xFF)] + raw
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        z += be32(b << 16 | a)
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                    + chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0])
                    + chunk("IDAT", z) + chunk("IEND", []))
    }

    /// SOI, fill bytes, an APP0 and a DQT-sized segment, then a SOFn of `width` x `height`.
    static func jpegHeader(sof: UInt8, width: Int, height: Int) -> Data {
        var d: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF]                              // SOI, fill byte
        d += [0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        d += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        d += [0xFF, sof, 0x00, 0x11, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3,
              1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1]
        return Data(d)
    }
}

@Suite struct ImageCodecTests {
    /// Semi-transparent pixels, down to alpha 1, and a transparent one with a colour.
    static let pixels: [UInt8] = [200, 100, 50, 128, 10, 20, 30, 1, 255, 0, 255, 254, 7, 8, 9, 0,
                                  0, 0, 0, 255, 255, 255, 255, 255, 1, 2, 3, 3, 90, 180, 45, 200]

    /// One decoder, straight alpha: the tile path and `PNGCodec` give the very bytes written by
    /// hand. (Cairo's premultiplied round trip, `PNGCodec`'s decoder before, gave (0, 0, 0, 1)
    /// for the alpha-1 pixel and (7, 8, 9, 0) as (0, 0, 0, 0).)
    @Test func oneDecoderKeepsStraightAlpha() throws {
        let png = Hand.png(width: 4, height: 2, pixels: Self.pixels)
        let tile = try ImageCodec.decode(png, limits: .init(maxSide: 4096))
        #expect(tile.width == 4 && tile.height == 2)
        #expect(tile.rgba == Self.pixels)
        let compared = try PNGCodec.decode(data: png)
        #expect(compared.pixels == Self.pixels)
        #expect(try ImageCodec.decode(png, limits: .image, strict: true).rgba == Self.pixels)
    }

    /// The encoder writes straight RGBA exactly (a transparent pixel's colour as 0), which the
    /// decoder reads back.
    @Test func encodeRoundTripsExactly() throws {
        let data = try ImageCodec.encodePNG(rgba: Self.pixels, width: 4, height: 2)
        var expected = Self.pixels
        expected[12...14] = [0, 0, 0]
        #expect(try ImageCodec.decode(data, limits: .image, strict: true).rgba == expected)
        #expect(data[25] == 6)   // colour type RGBA
        let opaque = [UInt8](repeating: 255, count: 16)
        let rgb = try ImageCodec.encodePNG(rgba: opaque, width: 2, height: 2)
        #expect(rgb[25] == 2)    // colour type RGB when every pixel is opaque
        #expect(try PNGHeader.read(rgb, name: "x") == PNGHeader(width: 2, height: 2, bitDepth: 8, colorType: 2, interlaced: false))
    }

    /// The header check reads sizes without decoding: PNG's IHDR, a JPEG's frame header past
    /// its other segments (baseline or progressive), WebP's.
    @Test func probeReadsTheHeaderOnly() throws {
        #expect(try ImageCodec.probe(Hand.png(width: 4, height: 2, pixels: Self.pixels))
                == .init(format: .png, width: 4, height: 2))
        #expect(try ImageCodec.probe(Hand.jpegHeader(sof: 0xC0, width: 300, height: 200)) == .init(format: .jpeg, width: 300, height: 200))
        #expect(try ImageCodec.probe(Hand.jpegHeader(sof: 0xC2, width: 65000, height: 65000))
                == .init(format: .jpeg, width: 65000, height: 65000))
        // A JPEG whose scan starts before any frame header; one cut inside its segments.
        #expect(throws: ImageCodec.Failure.malformed("JPEG has no frame header")) {
            try ImageCodec.probe(Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02]))
        }
        #expect(throws: ImageCodec.Failure.malformed("JPEG has no frame header")) {
            try ImageCodec.probe(Hand.jpegHeader(sof: 0xC0, width: 300, height: 200).prefix(30))
        }
        #expect(throws: ImageCodec.Failure.malformed("not a PNG, JPEG or WebP image")) { try ImageCodec.probe(Data("<html>".utf8)) }
    }

    /// One size policy, from the header, before any decoder allocates: sides and pixels.
    @Test func sizePolicyRefusesFromTheHeader() throws {
        let jpeg = Hand.jpegHeader(sof: 0xC2, width: 65000, height: 65000)
        #expect(throws: ImageCodec.Failure.tooLarge("JPEG is 65000x65000 pixels, outside 1x1...4096x4096")) {
            try ImageCodec.decode(jpeg, limits: .init(maxSide: 4096))
        }
        #expect(throws: ImageCodec.Failure.tooLarge("JPEG is 65000x65000 = 4225000000 pixels, more than the limit of 268435456")) {
            try ImageCodec.decode(jpeg, limits: .image)
        }
        let png = Hand.png(width: 4, height: 2, pixels: Self.pixels)
        #expect(throws: ImageCodec.Failure.tooLarge("PNG is 4x2 = 8 pixels, more than the limit of 7")) {
            try ImageCodec.decode(png, limits: .init(maxPixels: 7))
        }
        // PNGCodec (compare, the tests) under its own limit, 2^28 pixels: a header claiming 20000².
        var big = [UInt8](png)
        big.replaceSubrange(16..<24, with: Hand.be32(20000) + Hand.be32(20000))
        #expect(throws: MapRenderError(.inputMalformed, "p.png: PNG is 20000x20000 = 400000000 pixels, more than the limit of 268435456")) {
            try PNGCodec.decode(data: Data(big), name: "p.png")
        }
    }

    /// zlib's CRC-32 against a bit-by-bit one, whole and in pieces.
    @Test func crcIsZlibs() {
        var bytes = [UInt8](repeating: 0, count: 100_003)
        var x: UInt32 = 12345
        for i in bytes.indices { x = x &* 1_103_515_245 &+ 12345; bytes[i] = UInt8(x >> 24) }
        let expected = Hand.crc(bytes)
        #expect(CRC32.checksum(bytes) == expected)
        var c = CRC32()
        c.update(bytes[..<777])
        c.update(bytes[777...])
        #expect(c.value == expected)
        #expect(Data(bytes).withUnsafeBytes { CRC32.checksum($0) } == expected)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }
}
