import Foundation

/// Assembles an animated PNG (APNG) from already-encoded PNG frames, without recompressing.
///
/// Each frame's compressed image data (its IDAT chunks) is moved as it is: frame 0 keeps IDAT
/// chunks (so viewers without APNG support show the first frame), later frames get the same
/// bytes in fdAT chunks. Every frame covers the whole image (offset 0, 0; dispose_op NONE,
/// blend_op SOURCE). Layout of the output:
///
///     signature, IHDR, acTL, [chunks before IDAT from frame 0: PLTE, tRNS, gAMA, ...],
///     fcTL(0), IDAT..., fcTL(1), fdAT(2)..., fcTL(n), fdAT(n+1)..., IEND
///
/// fcTL and fdAT share one sequence number counter starting at 0.
///
/// ```swift
/// var apng = APNGWriter(width: 800, height: 600, loops: 0)      // 0: loop forever
/// for png in framePNGs { try apng.add(framePNG: png, delayNumerator: 1, delayDenominator: 30) }
/// try apng.finish().write(to: url)
/// ```
public struct APNGWriter: Sendable {
    public let width: Int
    public let height: Int
    /// Number of times to play; 0 means forever.
    public let loops: Int
    public private(set) var frameCount = 0

    private var ihdr: [UInt8]?
    /// Chunks of frame 0 between IHDR and the first IDAT (PLTE, tRNS, colour information), as written.
    private var preamble = Data()
    private var palette: [UInt8]?
    private var body = Data()
    private var sequence: UInt32 = 0

    public init(width: Int, height: Int, loops: Int = 0) {
        self.width = width
        self.height = height
        self.loops = loops
    }

    /// Adds one frame: a complete PNG of `width` × `height` whose IHDR (bit depth, colour type,
    /// interlace, ...) and palette equal those of the first frame. The frame shows for
    /// `delayNumerator / delayDenominator` seconds (a denominator of 0 means 1/100 s units).
    ///
    /// - Throws: `MapRenderError.internal` when the bytes are not a valid PNG (bad signature,
    ///   bad chunk CRC, no IHDR or IDAT), already animated, or differ from the first frame.
    public mutating func add(framePNG png: Data, delayNumerator: UInt16, delayDenominator: UInt16) throws {
        func fail(_ message: String) -> MapRenderError {
            MapRenderError(.internal, "APNG frame \(frameCount): \(message)")
        }
        let bytes = [UInt8](png)
        var chunks: [(type: String, data: [UInt8])] = []
        do {
            try PNGChunks.walk(bytes) { chunks.append(($0.type, Array(bytes[$0.data]))) }
        } catch let p as PNGChunks.Problem {
            throw fail(p.text)
        }
        guard let header = chunks.first, header.type == "IHDR", header.data.count == 13 else {
            throw fail("the PNG does not start with an IHDR chunk")
        }
        let w = Int(PNGChunks.uint32(header.data, 0)), h = Int(PNGChunks.uint32(header.data, 4))
        guard w == width && h == height else {
            throw fail("the PNG is \(w)×\(h), the animation \(width)×\(height)")
        }
        if let ihdr, ihdr != header.data {
            throw fail("the PNG's IHDR (bit depth, colour type, interlace) differs from frame 0's")
        }
        if chunks.contains(where: { $0.type == "acTL" || $0.type == "fcTL" || $0.type == "fdAT" }) {
            throw fail("the PNG is already animated")
        }
        let plte = chunks.first { $0.type == "PLTE" }?.data
        if frameCount > 0 && plte != palette {
            throw fail("the PNG's palette differs from frame 0's")
        }
        guard let firstIDAT = chunks.firstIndex(where: { $0.type == "IDAT" }) else {
            throw fail("the PNG has no IDAT chunk")
        }

        if frameCount == 0 {
            ihdr = header.data
            palette = plte
            for c in chunks[1..<firstIDAT] { Self.writeChunk(c.type, c.data, to: &preamble) }
        }
        var fctl: [UInt8] = []
        fctl.reserveCapacity(26)
        Self.append(&fctl, sequence)
        Self.append(&fctl, UInt32(width))
        Self.append(&fctl, UInt32(height))
        Self.append(&fctl, UInt32(0))                 // x offset
        Self.append(&fctl, UInt32(0))                 // y offset
        Self.append(&fctl, delayNumerator)
        Self.append(&fctl, delayDenominator)
        fctl.append(0)                                // dispose_op: APNG_DISPOSE_OP_NONE
        fctl.append(0)                                // blend_op: APNG_BLEND_OP_SOURCE
        Self.writeChunk("fcTL", fctl, to: &body)
        sequence += 1

        for c in chunks where c.type == "IDAT" {
            if frameCount == 0 {
                Self.writeChunk("IDAT", c.data, to: &body)
            } else {
                var fdat: [UInt8] = []
                fdat.reserveCapacity(4 + c.data.count)
                Self.append(&fdat, sequence)
                fdat.append(contentsOf: c.data)
                Self.writeChunk("fdAT", fdat, to: &body)
                sequence += 1
            }
        }
        frameCount += 1
    }

    /// The animated PNG.
    /// - Precondition: at least one frame was added.
    public func finish() -> Data {
        precondition(frameCount > 0, "an APNG needs at least one frame")
        var out = Data(PNGChunks.signature)
        out.reserveCapacity(body.count + preamble.count + 128)
        Self.writeChunk("IHDR", ihdr!, to: &out)
        var actl: [UInt8] = []
        Self.append(&actl, UInt32(frameCount))
        Self.append(&actl, UInt32(clamping: loops))
        Self.writeChunk("acTL", actl, to: &out)
        out.append(preamble)
        out.append(body)
        Self.writeChunk("IEND", [], to: &out)
        return out
    }

    // MARK: Helpers

    static func writeChunk(_ type: String, _ data: [UInt8], to out: inout Data) {
        let typeBytes = Array(type.utf8)
        var header: [UInt8] = []
        append(&header, UInt32(data.count))
        out.append(contentsOf: header)
        out.append(contentsOf: typeBytes)
        out.append(contentsOf: data)
        var crc = CRC32()
        crc.update(typeBytes)
        crc.update(data)
        var tail: [UInt8] = []
        append(&tail, crc.value)
        out.append(contentsOf: tail)
    }

    static func append(_ bytes: inout [UInt8], _ v: UInt32) {
        bytes.append(UInt8(v >> 24)); bytes.append(UInt8((v >> 16) & 0xFF))
        bytes.append(UInt8((v >> 8) & 0xFF)); bytes.append(UInt8(v & 0xFF))
    }

    static func append(_ bytes: inout [UInt8], _ v: UInt16) {
        bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF))
    }
}
