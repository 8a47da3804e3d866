import Foundation
import Testing
@testable import MapRenderCore

// MARK: A PNG encoder small enough to check by eye (zlib stored blocks, no compression)

/// CRC-32 computed bit by bit (no table), independent of the writer's.
private func bitwiseCRC(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 1 ? 0xEDB8_8320 : 0) }
    }
    return ~c
}

private func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
private func readBE32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
}

private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let t = Array(type.utf8)
    return be32(UInt32(data.count)) + t + data + be32(bitwiseCRC(t + data))
}

/// zlib stream of stored (uncompressed) deflate blocks, with its Adler-32.
private func zlibStored(_ raw: [UInt8], blockSize: Int = 65_535) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var i = 0
    repeat {
        let n = min(blockSize, raw.count - i)
        let final: UInt8 = i + n == raw.count ? 1 : 0
        out.append(final)                                     // BFINAL, BTYPE = 00
        out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
        out += raw[i..<(i + n)]
        i += n
    } while i < raw.count
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
    return out + be32(b << 16 | a)
}

/// A valid RGBA PNG filled with one colour; its image data split over `idatChunks` IDAT chunks.
private func tinyPNG(width: Int, height: Int, rgba: [UInt8], idatChunks: Int = 1) -> Data {
    var raw: [UInt8] = []
    for _ in 0..<height {
        raw.append(0)                                         // filter: none
        for _ in 0..<width { raw += rgba }
    }
    let z = zlibStored(raw, blockSize: 7)
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0])
    let part = (z.count + idatChunks - 1) / idatChunks
    for k in 0..<idatChunks {
        png += chunk("IDAT", Array(z[min(z.count, k * part)..<min(z.count, (k + 1) * part)]))
    }
    png += chunk("IEND", [])
    return Data(png)
}

private struct ParsedChunk { var type: String; var data: [UInt8]; var crcOK: Bool }

private func parseChunks(_ data: Data) -> (signatureOK: Bool, chunks: [ParsedChunk]) {
    let b = [UInt8](data)
    var chunks: [ParsedChunk] = []
    var i = 8
    while i + 12 <= b.count {
        let n = Int(readBE32(b, i))
        let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
        let body = Array(b[(i + 8)..<(i + 8 + n)])
        let crc = readBE32(b, i + 8 + n)
        chunks.append(ParsedChunk(type: type, data: body, crcOK: crc == bitwiseCRC(Array(b[(i + 4)..<(i + 8 + n)]))))
        i += 12 + n
    }
    return (b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) && i == b.count, chunks)
}

@Suite struct APNGWriterTests {
    let frames = [
        tinyPNG(width: 3, height: 2, rgba: [255, 0, 0, 255]),
        tinyPNG(width: 3, height: 2, rgba: [0, 255, 0, 128], idatChunks: 3),
        tinyPNG(width: 3, height: 2, rgba: [0, 0, 255, 255], idatChunks: 2),
    ]

    @Test func testHelperMakesValidPNGs() {
        for f in frames {
            let (ok, chunks) = parseChunks(f)
            #expect(ok && chunks.allSatisfy { $0.crcOK })
        }
    }

    @Test func crcTable() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func assemblesAnAnimation() throws {
        var w = APNGWriter(width: 3, height: 2, loops: 2)
        for (k, f) in frames.enumerated() {
            try w.add(framePNG: f, delayNumerator: UInt16(k + 1), delayDenominator: 10)
        }
        #expect(w.frameCount == 3)
        let out = w.finish()
        let (ok, chunks) = parseChunks(out)
        #expect(ok)
        #expect(chunks.allSatisfy { $0.crcOK }, "bad CRC in \(chunks.filter { !$0.crcOK }.map(\.type))")
        #expect(chunks.map(\.type) == ["IHDR", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "fdAT", "fdAT", "fcTL", "fdAT", "fdAT", "IEND"])

        // acTL: num_frames, num_plays
        let actl = chunks[1].data
        #expect(readBE32(actl, 0) == 3 && readBE32(actl, 4) == 2)

        // Sequence numbers of fcTL and fdAT: 0, 1, 2, ... with no gap.
        let sequenced = chunks.filter { $0.type == "fcTL" || $0.type == "fdAT" }
        #expect(sequenced.map { readBE32($0.data, 0) } == Array(0..<UInt32(sequenced.count)))

        // fcTL: full frame, delay, dispose NONE, blend SOURCE.
        let fctls = chunks.filter { $0.type == "fcTL" }
        for (k, c) in fctls.enumerated() {
            #expect(c.data.count == 26)
            #expect(readBE32(c.data, 4) == 3 && readBE32(c.data, 8) == 2)          // width, height
            #expect(readBE32(c.data, 12) == 0 && readBE32(c.data, 16) == 0)        // offsets
            #expect(Int(c.data[20]) << 8 | Int(c.data[21]) == k + 1)               // delay_num
            #expect(Int(c.data[22]) << 8 | Int(c.data[23]) == 10)                  // delay_den
            #expect(c.data[24] == 0 && c.data[25] == 0)
        }

        // Each frame's image data is moved unchanged: rebuilt as a plain PNG it equals the input.
        let ihdr = chunks[0]
        var frameData: [[UInt8]] = []
        for c in chunks {
            if c.type == "fcTL" { frameData.append([]) }
            if c.type == "IDAT" { frameData[frameData.count - 1] += c.data }
            if c.type == "fdAT" { frameData[frameData.count - 1] += c.data.dropFirst(4) }
        }
        for (k, f) in frames.enumerated() {
            let inputIDAT = parseChunks(f).chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
            #expect(frameData[k] == inputIDAT)
            #expect(ihdr.data == parseChunks(f).chunks[0].data)
        }
        // Frame 0 alone, as a viewer without APNG support sees it.
        let still = [UInt8](out.prefix(8)) + chunk("IHDR", ihdr.data) + chunk("IDAT", frameData[0]) + chunk("IEND", [])
        #expect(Data(still) == frames[0])
    }

    @Test func singleFrameAndInfiniteLoop() throws {
        var w = APNGWriter(width: 3, height: 2)
        try w.add(framePNG: frames[0], delayNumerator: 1, delayDenominator: 1)
        let chunks = parseChunks(w.finish()).chunks
        #expect(chunks.map(\.type) == ["IHDR", "acTL", "fcTL", "IDAT", "IEND"])
        #expect(readBE32(chunks[1].data, 0) == 1 && readBE32(chunks[1].data, 4) == 0)
    }

    @Test func rejectsBadFrames() throws {
        var w = APNGWriter(width: 3, height: 2)
        #expect(throws: MapRenderError(.internal, "APNG frame 0: the PNG is 4×2, the animation 3×2")) {
            try w.add(framePNG: tinyPNG(width: 4, height: 2, rgba: [0, 0, 0, 255]), delayNumerator: 1, delayDenominator: 10)
        }
        #expect(throws: MapRenderError(.internal, "APNG frame 0: not a PNG (bad signature)")) {
            try w.add(framePNG: Data("GIF89a".utf8), delayNumerator: 1, delayDenominator: 10)
        }
        var corrupt = [UInt8](frames[0])
        corrupt[40] ^= 0xFF
        #expect(throws: MapRenderError.self) {
            try w.add(framePNG: Data(corrupt), delayNumerator: 1, delayDenominator: 10)
        }
        #expect(w.frameCount == 0)
        try w.add(framePNG: frames[0], delayNumerator: 1, delayDenominator: 10)
        // Later frames must share frame 0's IHDR (here: colour type 2 instead of 6).
        var rgb = [UInt8](frames[1])
        rgb[8 + 8 + 9] = 2
        let fixed = Array(rgb[8..<33])
        rgb.replaceSubrange(29..<33, with: be32(bitwiseCRC(Array(fixed[4..<21]))))
        #expect(throws: MapRenderError(.internal,
                "APNG frame 1: the PNG's IHDR (bit depth, colour type, interlace) differs from frame 0's")) {
            try w.add(framePNG: Data(rgb), delayNumerator: 1, delayDenominator: 10)
        }
        #expect(w.frameCount == 1)
    }
}
