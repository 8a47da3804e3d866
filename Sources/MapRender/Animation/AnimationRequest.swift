import Foundation
import MapRenderCore

/// Everything an animation needs: where the points come from, how time runs, what is written.
///
/// The look (style, size, scale, basemaps, labels, clustering, padding, max zoom, a fixed
/// `--center`/`--bbox` view, frame format) comes from `base`, the request of a single map;
/// its `inputs`, `points`, `filter` and per-point factors are ignored.
///
/// ```swift
/// var r = AnimationRequest(source: .keyframes(["day1.geojson", "day2.geojson"]),
///                          output: .frames(folder: "frames", format: .png))
/// r.framesPerTransition = 30
/// r.base.width = 800; r.base.height = 600
/// let result = try AnimationRenderer.render(r)
/// ```
public struct AnimationRequest: Sendable {
    public enum Source: Sendable {
        /// Two or more point files, matched by id (`base.inputOptions.idField`, the feature id
        /// or a CSV `id` column); each consecutive pair is one transition.
        case keyframes([String])
        /// One CSV of id, time, latitude and longitude rows in any order.
        case tracks(String, TrackColumns)
    }

    public enum Output: Sendable, Equatable {
        /// Numbered frames `frame-00001.<format>` in a folder (created if missing).
        case frames(folder: String, format: OutputFormat)
        /// One animated PNG (APNG) file.
        case apng(String)
        /// One SVG file animated with SMIL.
        case animatedSVG(String)
        /// Nothing written: frames are handed to `AnimationRenderer.render(_:onFrame:)` only.
        case inMemory(format: OutputFormat)
    }

    public var source: Source
    public var output: Output
    /// The map every frame is drawn like.
    public var base = RenderRequest()

    /// Keyframes: frames per transition, N. K keyframes give (K − 1) · N + 1 frames: transition j
    /// contributes its frames at t = 0, 1/N, …, (N−1)/N, and the very last frame is the last
    /// keyframe at t = 1. Each keyframe is therefore shown exactly once (no repeated endpoints):
    /// keyframe j is frame j · N + 1 (1-based).
    public var framesPerTransition = 30
    /// Frames per second of the result (APNG delays, SVG duration). nil: 10 for tracks;
    /// `framesPerTransition` for keyframes (a transition lasts 1 s).
    public var fps: Double?
    /// Tracks: seconds of animation the data's time span is squeezed into (default 10 s), giving
    /// round(duration × fps) frames…
    public var duration: Double?
    /// …unless the frame count is given directly.
    public var frameCount: Int?
    /// Tracks: the data time span shown (seconds since 1970, see `TrackTime`); nil: the first /
    /// last valid sample.
    public var start: Double?
    public var end: Double?
    /// Keyframes: how positions move between keyframes. (Tracks interpolate linearly in time.)
    public var easing: Easing = .easeInOut
    /// Tracks: keep a point at its first position before its first sample and at its last after.
    public var hold = false
    /// Let the view follow the points (per-frame fit, smoothed) instead of one view for all frames.
    public var follow = false
    /// Frames rendered at once (default: the number of cores). The frames do not depend on it.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// How long a point takes to travel into or out of a cluster bubble, and a bubble to grow,
    /// shrink or move to a new centre, in map time: keyframes, a share of the time between two
    /// keyframes (default 1/3); tracks, seconds of the data's time (default a thirtieth of the
    /// span shown). Cut short at the next keyframe (or a track's start or end), so frames there
    /// show the data at rest, exactly as a still map, at any frame count or rate.
    public var clusterTransition: Double?
    /// `--trail`: seconds of the animation (playback time) whose path each moving point draws
    /// behind it, fading out (`AnimationTrails`); nil: no trails.
    public var trail: Double?
    /// Loops of an APNG (0: forever).
    public var loops = 0
    /// Refuse animations of more frames than this (`--max-frames`), before anything is read.
    public var maxFrames = 100_000

    public init(source: Source, output: Output) {
        self.source = source
        self.output = output
    }

    /// The frame rate used: `fps`, else 10 for tracks and `framesPerTransition` for keyframes.
    public var effectiveFPS: Double {
        if let f = fps { return f }
        if case .tracks = source { return 10 }
        return Double(max(framesPerTransition, 1))
    }

    /// The frame format written or handed out.
    public var frameFormat: OutputFormat {
        switch output {
        case .frames(_, let f), .inMemory(let f): return f
        case .apng: return .png
        case .animatedSVG: return .svg
        }
    }

}

/// Durations as `--duration` takes them: `20s`, `1.5m`, `2m30s`, `1h`, `250ms`, or plain seconds (`12.5`).
public enum AnimationDuration {
    /// Seconds, or nil when the text is not a positive, finite duration.
    public static func parse(_ text: String) -> Double? {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !s.isEmpty else { return nil }
        if let plain = Double(s) { return plain > 0 && plain.isFinite ? plain : nil }
        var total = 0.0
        var rest = Substring(s)
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            switch unit {
            case "h": total += value * 3600
            case "m", "min": total += value * 60
            case "s", "sec": total += value
            case "ms": total += value / 1000
            default: return nil
            }
        }
        return total > 0 && total.isFinite ? total : nil
    }
}

extension AnimationRequest {
    /// Whether a file reads as tracks: not GeoJSON, and its header row has a time column
    /// (`time`, `timestamp`, `datetime` or `date`, any case). Standard input is never sniffed.
    public static func looksLikeTracks(path: String) -> Bool {
        guard path != "-" else { return false }
        let lower = path.lowercased()
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        var bytes = [UInt8](head)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.first == UInt8(ascii: "{") || bytes.first == UInt8(ascii: "[") { return false }
        let line = bytes.prefix { $0 != 0x0A && $0 != 0x0D }
        let text = String(decoding: line, as: UTF8.self)
        let delimiters: [Character] = [",", ";", "\t"]
        let delimiter = delimiters.max { a, b in text.filter { $0 == a }.count < text.filter { $0 == b }.count } ?? ","
        let names = text.split(separator: delimiter, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")).lowercased()
        }
        return names.contains { ["time", "timestamp", "datetime", "date"].contains($0) }
    }
}
