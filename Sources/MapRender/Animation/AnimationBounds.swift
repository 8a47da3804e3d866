import Foundation
import MapRenderCore

/// The frame count an animation request asks for, checked before anything is read or allocated:
/// `--duration 1e9` or `--frames 1000000000` fail at once with the limit and the option that
/// raises it, instead of allocating (or writing) without end.
enum AnimationBounds {
    /// Frames the request will render, as `AnimationSource` computes them (nil: not known before
    /// reading, never the case today). Saturates instead of overflowing.
    static func plannedFrames(_ r: AnimationRequest) -> Double {
        switch r.source {
        case .keyframes(let files):
            return Double(max(files.count - 1, 0)) * Double(max(r.framesPerTransition, 1)) + 1
        case .tracks:
            if let n = r.frameCount { return Double(n) }
            return ((r.duration ?? 10) * r.effectiveFPS).rounded()
        }
    }

    static func check(_ r: AnimationRequest) throws {
        let n = plannedFrames(r)
        guard !(n.isFinite && n > Double(r.maxFrames)) else { // not finite: the source reports the bad value
            let how: String
            switch r.source {
            case .keyframes(let files): how = "\(files.count - 1) transitions × --frames \(r.framesPerTransition)"
            case .tracks: how = r.frameCount != nil ? "--frames" : "--duration × --fps"
            }
            throw MapRenderError(.usage, "the animation would have \(n < 1e15 ? String(Int(n)) : String(n)) frames (\(how)), "
                + "more than the limit of \(r.maxFrames); --max-frames raises it")
        }
    }
}

extension AnimationRequest {
    /// The files the animation reads (keyframes or tracks, basemaps): frames never replace them.
    var filesRead: [String] {
        switch source {
        case .keyframes(let files): return files + base.basemaps
        case .tracks(let path, _): return [path] + base.basemaps
        }
    }
}
