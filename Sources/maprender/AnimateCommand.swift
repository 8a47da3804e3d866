import ArgumentParser
import Foundation
import MapRender

struct Animate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animate",
        abstract: "Render an animation: points moving, appearing and disappearing, as numbered frames or one animated file.",
        discussion: """
        Keyframes (two or more files, points matched by id): consecutive files are one transition each; \
        a point in both moves, one only in the later file fades and grows in, one only in the earlier \
        fades out. K files and --frames N give (K-1)*N+1 frames: keyframe j is frame j*N+1, shown once.
          maprender animate day1.geojson day2.geojson day3.geojson -o frames/ --frames 30

        Tracks (one CSV of id, time, lat, lon rows in any order; chosen when --time is given or the \
        CSV has a time, timestamp, datetime or date column): the data's time span (or --start..--end) \
        becomes --duration of animation at --fps; each frame shows every id where it is at that time.
          maprender animate tracks.csv --id id --time time --fps 10 --duration 20s -o frames/

        One view fits every frame (--follow moves it smoothly instead); each frame is clustered from \
        its own positions, and points travel into and out of bubbles instead of popping; these effects \
        are over by every keyframe (and a track's start and end), where a frame is the still map.
        Output: frames frame-00001.png ... in the -o folder (created if needed; frames of this format \
        numbered beyond this animation's, left by an earlier run, are removed; --format svg or pdf for \
        vector frames), or with --animated one APNG (-o anim.png) or SMIL SVG (-o anim.svg).
        To make a video or GIF from the frames:
          ffmpeg -framerate 30 -i frames/frame-%05d.png -pix_fmt yuv420p out.mp4
          ffmpeg -framerate 30 -i frames/frame-%05d.png -vf "split[a][b];[a]palettegen[p];[b][p]paletteuse" out.gif
        """
    )

    @Argument(help: ArgumentHelp("Two or more keyframe files (GeoJSON or CSV), or one track CSV.", valueName: "input"))
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for the numbered frames, or with --animated the .png (APNG) or .svg file.", valueName: "path"))
    var output: String

    @Option(help: "Frame format: png, jpeg, webp, svg or pdf (default: png, or the --animated file's extension).")
    var format: OutputFormat?

    @Flag(help: "Write one animated file: APNG for -o *.png, SMIL SVG for -o *.svg.")
    var animated = false

    @Option(help: ArgumentHelp("Keyframes: frames per transition (default 30). Tracks: the total number of frames (instead of --duration × --fps).", valueName: "n"))
    var frames: Int?

    @Option(help: ArgumentHelp("Frames per second (default: 10 for tracks; --frames for keyframes, so a transition lasts 1 s).", valueName: "f"))
    var fps: Double?

    @Option(help: ArgumentHelp("Tracks: length of the animation: 20s, 1.5m, 2m30s or seconds (default 10s).", valueName: "time"))
    var duration: String?

    @Option(help: ArgumentHelp("Tracks: first time shown (ISO 8601 or seconds; default: the earliest sample).", valueName: "time"))
    var start: String?

    @Option(help: ArgumentHelp("Tracks: last time shown (default: the latest sample).", valueName: "time"))
    var end: String?

    @Option(help: "Keyframes: how points move between keyframes: linear, ease-in-out or cubic.")
    var easing: Easing = .easeInOut

    @Flag(help: "Tracks: show each id at its first position before its first sample and at its last after its last.")
    var hold = false

    @Option(help: ArgumentHelp("Draw behind each moving point the path it took over this much of the animation (playback time: 1.5s, 500ms), a line in the marker's colour that fades out, in PNG frames, APNG and the animated SVG alike.", valueName: "duration"))
    var trail: String?

    @Flag(help: "Let the view follow the points (smoothed) instead of one view fitted to every frame.")
    var follow = false

    @Option(help: ArgumentHelp("Tracks: id column (default: id). Keyframes: same as --id-field.", valueName: "name"))
    var id: String?

    @Option(name: [.customLong("time"), .customLong("time-field")],
            help: ArgumentHelp("Tracks: time column (default: time, timestamp, datetime or date).", valueName: "name"))
    var time: String?

    @Option(name: [.customShort("j"), .customLong("jobs")], help: ArgumentHelp("Frames rendered at once (default: the number of cores). The frames are the same for any value.", valueName: "n"))
    var jobs: Int?

    @Option(name: .customLong("cluster-transition"), help: ArgumentHelp("How long a point takes to travel into or out of a cluster bubble, in map time. Keyframes: a share of the time between keyframes (default 0.33). Tracks: data time, 20s, 5m, 1h or seconds (default: a thirtieth of the span). Always over by the next keyframe.", valueName: "time"))
    var clusterTransition: String?

    @Option(name: .customLong("max-frames"), help: ArgumentHelp("Refuse animations of more frames than this, before reading anything.", valueName: "n"))
    var maxFrames = 100_000

    @OptionGroup(title: "Input")
    var input: InputOptionGroup

    @OptionGroup(title: "Map")
    var map: MapOptionGroup

    @Option(help: ArgumentHelp("Write a JSON summary (frames, view, keyframe or track counts, time per stage) to a file or '-'.", valueName: "file"))
    var summary: String?

    @Flag(name: .shortAndLong, help: "Print no progress and no warnings (skipped rows, tiles missing or failed, a scale bar or legend that cannot be drawn, a missing font family). Errors are still printed.")
    var quiet = false

    /// `--cluster-transition` in map time: a share of a keyframe interval, or data seconds for tracks.
    var parsedClusterTransition: Double? {
        guard let c = clusterTransition else { return nil }
        if isTracks { return AnimationDuration.parse(c) }
        guard let v = Double(c), v > 0, v <= 1 else { return nil }
        return v
    }

    var isTracks: Bool {
        inputs.count == 1 && (time != nil || AnimationRequest.looksLikeTracks(path: inputs[0]))
    }

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give two or more keyframe files, or one track CSV") }
        if inputs.count == 1 && !isTracks {
            throw ValidationError("one input is animated as tracks, but '\(inputs[0])' has no time column: name it with --time, or give two or more keyframe files")
        }
        if inputs.count >= 2 && time != nil { throw ValidationError("--time is for one track CSV; keyframe files are matched by id") }
        if !isTracks {
            if duration != nil || start != nil || end != nil { throw ValidationError("--duration, --start and --end are for tracks (one CSV with a time column)") }
            if hold { throw ValidationError("--hold is for tracks (one CSV with a time column)") }
        }
        if let n = frames, n < 1 { throw ValidationError("--frames must be at least 1, got \(n)") }
        if let f = fps, !(f > 0 && f <= 1000) { throw ValidationError("--fps must be in (0, 1000], got \(f)") }
        if let t = trail, AnimationDuration.parse(t) == nil { throw ValidationError("--trail must look like 1.5s, 500ms or 2 (seconds of the animation), got '\(t)'") }
        if let d = duration, AnimationDuration.parse(d) == nil { throw ValidationError("--duration must look like 20s, 1.5m, 2m30s or 12 (seconds), got '\(d)'") }
        for (flag, t) in [("--start", start), ("--end", end)] {
            if let t, TrackTime.parse(t) == nil { throw ValidationError("\(flag) must be ISO 8601 (2004-03-19T18:00:00Z) or seconds, got '\(t)'") }
        }
        if let j = jobs, j < 1 { throw ValidationError("--jobs must be at least 1, got \(j)") }
        if let c = clusterTransition, parsedClusterTransition == nil {
            throw ValidationError(isTracks
                ? "--cluster-transition must be a duration of data time like 20s, 5m or 1h, got '\(c)'"
                : "--cluster-transition must be a share of the time between keyframes, a number in (0, 1], got '\(c)'")
        }
        let ext = OutputFormat(path: output)
        if animated {
            guard ext == .png || ext == .svg else { throw ValidationError("--animated writes one .png (APNG) or .svg (SMIL) file; -o must end in .png or .svg, got '\(output)'") }
            if let f = format, f != ext { throw ValidationError("--format \(f.rawValue) does not match the animated file '\(output)'") }
        } else if ext != nil {
            throw ValidationError("-o '\(output)' looks like a file: numbered frames go to a folder; add --animated for one animated file")
        }
        if output == "-" { throw ValidationError("animations are written to files: -o cannot be '-'") }
        if map.filter != nil { throw ValidationError("--filter is not supported by animate: filter the keyframe or track files first") }
    }

    func request() throws -> AnimationRequest {
        let out: AnimationRequest.Output
        if animated {
            out = OutputFormat(path: output) == .png ? .apng(output) : .animatedSVG(output)
        } else {
            out = .frames(folder: output, format: format ?? .png)
        }
        var inputOptions = try input.options()
        let source: AnimationRequest.Source
        if isTracks {
            source = .tracks(inputs[0], TrackColumns(id: id ?? inputOptions.idField, time: time, lat: inputOptions.latField,
                                                     lon: inputOptions.lonField, delimiter: inputOptions.delimiter,
                                                     wrapLongitude: inputOptions.wrapLongitude))
        } else {
            if inputOptions.idField == nil { inputOptions.idField = id }
            source = .keyframes(inputs)
        }
        var r = AnimationRequest(source: source, output: out)
        var b = try map.request()
        b.inputOptions = inputOptions
        r.base = b
        if isTracks {
            r.frameCount = frames
        } else if let n = frames {
            r.framesPerTransition = n
        }
        r.fps = fps
        r.duration = duration.flatMap(AnimationDuration.parse)
        r.start = start.flatMap(TrackTime.parse)
        r.end = end.flatMap(TrackTime.parse)
        r.easing = easing
        r.hold = hold
        r.trail = trail.flatMap(AnimationDuration.parse)
        r.follow = follow
        if let j = jobs { r.jobs = j }
        r.clusterTransition = parsedClusterTransition
        r.maxFrames = maxFrames
        return r
    }

    func run() throws {
        try runReportingErrors {
            try OutputSafety.check(outputs: (animated ? [("--output", output)] : []) + (summary.map { [("--summary", $0)] } ?? []),
                                   inputs: inputs.map { ("input", $0) } + map.filesRead)
            ProcessMemory.keepFreedBlocks()
            let printer = AnimationProgressPrinter(mode: quiet ? .quiet : .automatic)
            let result = try AnimationRenderer.render(try request(), progress: { printer.handle($0) })
            printer.finish(result)
            if !quiet { result.warnings.forEach { printError("maprender: warning: \($0)") } }
            if let s = summary { try AtomicFile.write(try jsonText(result), to: s) }
        }
    }
}

extension Easing: ExpressibleByArgument {}
