import Foundation
import MapRenderCore

/// Where an animation's frames go: numbered files in a folder, one APNG, one SMIL SVG, or only
/// the caller's `onFrame`. The renderer plans, lays out and draws every frame the same way and
/// hands each to the sink.
protocol FrameSink {
    /// Whether frames are drawn to bytes (the animated SVG takes the laid-out frames only).
    var wantsBytes: Bool { get }
    /// A frame's bytes, on the rendering thread that drew it (one call at a time per frame, frames
    /// in any order): a folder writes its file here, in parallel.
    func store(_ data: Data, frame: Int) throws
    /// Every frame, in order, on the calling thread.
    mutating func append(_ plan: FramePlan, scene: Scene, data: Data?) throws
    /// Writes what the sink holds; returns the files written.
    mutating func finish() throws -> [String]
}

extension FrameSink {
    func store(_ data: Data, frame: Int) throws {}
    mutating func append(_ plan: FramePlan, scene: Scene, data: Data?) throws {}
}

/// Numbered frames `frame-00001.png` … in a folder, and last `maprender-frames.json` naming them
/// with the CRC-32 of each (`FrameFiles.manifestName`).
///
/// A reader never takes frames of two runs for one set: the manifest is removed before the first
/// frame is written and written (atomically) only once every frame is, and a frame whose bytes
/// do not match its checksum there belongs to another run (two runs into one folder at once).
struct FrameFolderSink: FrameSink {
    let folder: String
    let count: Int
    let format: OutputFormat
    /// Each frame's CRC-32, set by the thread that wrote it.
    private let checksums: Checksums

    final class Checksums: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [UInt32]
        init(count: Int) { values = Array(repeating: 0, count: count) }
        func set(_ k: Int, _ v: UInt32) { lock.lock(); values[k] = v; lock.unlock() }
        var all: [UInt32] { lock.lock(); defer { lock.unlock() }; return values }
    }

    /// - Parameter protected: the run's inputs: never removed, and an error when a frame would replace one.
    init(folder: String, count: Int, format: OutputFormat, protected: [String]) throws {
        self.folder = folder
        self.count = count
        self.format = format
        checksums = Checksums(count: count)
        try FrameFiles.prepare(folder: folder, count: count, format: format, protected: protected)
    }

    var wantsBytes: Bool { true }

    func store(_ data: Data, frame: Int) throws {
        try AtomicFile.write(data, to: FrameFiles.path(folder: folder, frame: frame, count: count, format: format))
        checksums.set(frame, data.withUnsafeBytes { CRC32.checksum($0) })
    }

    func finish() throws -> [String] {
        let sums = checksums.all
        let frames = (0..<count).map { k in
            #"    {"file": "\#(FrameFiles.name(frame: k, count: count, format: format))", "crc32": "\#(String(format: "%08x", sums[k]))"}"#
        }
        let json = "{\n  \"format\": \"\(format.rawValue)\",\n  \"count\": \(count),\n  \"frames\": [\n"
            + frames.joined(separator: ",\n") + "\n  ]\n}\n"
        try AtomicFile.write(Data(json.utf8), to: (folder as NSString).appendingPathComponent(FrameFiles.manifestName))
        return (0..<count).map { FrameFiles.path(folder: folder, frame: $0, count: count, format: format) }
    }
}

/// One animated PNG.
struct APNGSink: FrameSink {
    let path: String
    private var writer: APNGWriter
    private let delay: (UInt16, UInt16)

    init(path: String, base: RenderRequest, loops: Int, fps: Double) {
        self.path = path
        let px = Int((base.width * base.scale).rounded(.up))
        let py = Int((base.height * base.scale).rounded(.up))
        writer = APNGWriter(width: px, height: py, loops: loops)
        delay = Self.delay(fps: fps)
    }

    var wantsBytes: Bool { true }

    mutating func append(_ plan: FramePlan, scene: Scene, data: Data?) throws {
        try writer.add(framePNG: data!, delayNumerator: delay.0, delayDenominator: delay.1)
    }

    mutating func finish() throws -> [String] {
        try AtomicFile.write(writer.finish(), to: path)
        return [path]
    }

    /// An APNG frame delay of 1/fps s as a fraction that fits 16 bits.
    static func delay(fps: Double) -> (UInt16, UInt16) {
        if fps == fps.rounded(), fps >= 1, fps <= 65535 { return (1, UInt16(fps)) }
        let ms = min(max((1000 / fps).rounded(), 1), 65535)
        return (UInt16(ms), 1000)
    }
}

/// One SVG animated with SMIL over the still part of the map.
struct AnimatedSVGSink: FrameSink {
    let path: String
    private var svg: AnimatedSVG
    /// The still part (background, basemap, attribution) as Cairo writes it.
    private let background: () throws -> Data

    init(path: String, base: RenderRequest, fps: Double, frameCount: Int, trails: AnimationTrails? = nil,
         background: @escaping () throws -> Data) {
        self.path = path
        svg = AnimatedSVG(base: base, fps: fps, frameCount: frameCount)
        svg.trails = trails
        self.background = background
    }

    var wantsBytes: Bool { false }

    mutating func append(_ plan: FramePlan, scene: Scene, data: Data?) throws {
        svg.add(plan, scene: scene)
    }

    mutating func finish() throws -> [String] {
        try AtomicFile.write(svg.document(background: try background()), to: path)
        return [path]
    }
}

/// Nothing written: the frames go to `onFrame` only.
struct CallerSink: FrameSink {
    var wantsBytes: Bool { true }
    func finish() throws -> [String] { [] }
}
