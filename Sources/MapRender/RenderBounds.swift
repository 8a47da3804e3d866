import Foundation
import MapRenderCore

/// The memory a render will need, estimated before anything is read, so a request that cannot
/// fit fails at once with the figure instead of being killed half-way (or taking the machine).
///
/// The estimate counts what is known up front:
/// - the image: Cairo's 4 bytes per pixel, the same again for the PNG encoder's copy and 4 more
///   for a PDF/SVG recording or the PNG writer's bands (its filtered rows compressed, at most
///   about the image's bytes);
/// - GeoJSON files (inputs and basemaps), read whole: about 3 times their size while parsed;
/// - CSV files: their rows, estimated from the line length of the first 64 KiB and the file's
///   size, at `InputMemoryLimit.bytesPerPoint` each (points given in the request count the same).
///
/// Input whose size is not known (standard input, a pipe) is bounded while it is read instead:
/// `readingLimit` is what is left of the limit, and the reader stops with an error past it.
enum RenderBounds {
    static let bytesPerPixel = 12.0
    static let geoJSONFactor = Double(InputMemoryLimit.geoJSONFactor)
    static let bytesPerPoint = Double(InputMemoryLimit.bytesPerPoint)
    /// How much of a CSV file is read to estimate its rows.
    static let sampleBytes = 64 * 1024

    struct Estimate {
        var image = 0.0
        var geoJSON = 0.0
        var csvRows = 0
        var csv: Double { Double(csvRows) * RenderBounds.bytesPerPoint }
        var total: Double { image + geoJSON + csv }
    }

    static func estimate(_ r: RenderRequest) -> Estimate {
        var e = Estimate()
        e.image = imageBytes(r)
        let basemapBytes = r.basemaps.reduce(0) { $0 + (regularFileSize($1) ?? 0) }
        if let points = r.points {
            e.csvRows = points.count
        } else {
            e = estimate(inputs: r.inputs, format: r.inputOptions.format)
            e.image = imageBytes(r)
        }
        e.geoJSON += Double(basemapBytes) * geoJSONFactor
        // Data in memory: counted as GeoJSON (the larger factor), whatever its format.
        if r.points == nil { e.geoJSON += Double(r.inlineInputs.reduce(0) { $0 + $1.data.count }) * geoJSONFactor }
        return e
    }

    /// The input files alone (no image, no basemaps): what `cluster` and `inspect` hold.
    static func estimate(inputs: [String], format: InputOptions.Format?) -> Estimate {
        var e = Estimate()
        var geoJSONBytes = 0
        for path in inputs {
            guard let size = regularFileSize(path) else { continue }   // bounded while read
            let head = sample(path)
            if isGeoJSON(path, head, format) {
                geoJSONBytes += size
            } else {
                e.csvRows += estimatedRows(size: size, head: head)
            }
        }
        e.geoJSON = Double(geoJSONBytes) * geoJSONFactor
        return e
    }

    static func check(_ r: RenderRequest) throws {
        try check(estimate(r), subject: "the render", points: r.points != nil, r)
    }

    /// The error when `e` exceeds the limit: `SUBJECT would need about … (… for the image, …), more than the limit …`.
    private static func check(_ e: Estimate, subject: String, points: Bool, _ r: RenderRequest) throws {
        guard e.total <= Double(r.maxMemory) else {
            var parts = e.image > 0 ? ["\(mb(e.image)) for the image"] : []
            if e.geoJSON > 0 { parts.append("\(mb(e.geoJSON)) for the GeoJSON files") }
            if e.csvRows > 0 {
                parts.append("\(mb(e.csv)) for \(points ? "" : "about ")\(e.csvRows) \(points ? "points" : "CSV rows")")
            }
            throw MapRenderError(.usage, "\(subject) would need about \(mb(e.total)) of memory (\(parts.joined(separator: ", "))), "
                + limitText(r))
        }
    }

    /// Reads one input within `r.maxMemory`, for commands that draw nothing (`cluster`,
    /// `inspect`): a file whose estimate exceeds it fails before reading, with the render's
    /// message (less the image); standard input stops once past it.
    static func readInput(path: String, _ r: RenderRequest) throws -> LoadedPoints {
        try check(estimate(inputs: [path], format: r.inputOptions.format), subject: "reading the input", points: false, r)
        var options = r.inputOptions
        options.memoryLimit = InputMemoryLimit(bytes: r.maxMemory, limitText: limitText(r), withImage: false)
        return try PointReader.read(path: path, options: options)
    }

    /// What the next input may take while it is read: the limit less the image, the basemaps
    /// and the points already read. (Input files were counted up front; this bounds what was
    /// not, and what a misleading CSV head let through.)
    static func readingLimit(_ r: RenderRequest, pointsSoFar: Int) -> InputMemoryLimit {
        var e = Estimate()
        e.image = imageBytes(r)
        e.geoJSON = Double(r.basemaps.reduce(0) { $0 + (regularFileSize($1) ?? 0) }) * geoJSONFactor
        e.csvRows = pointsSoFar
        let left = Double(r.maxMemory) - e.total
        return InputMemoryLimit(bytes: left > 0 ? Int(left) : 0, limitText: limitText(r))
    }

    static func imageBytes(_ r: RenderRequest) -> Double {
        (r.width * r.scale).rounded(.up) * (r.height * r.scale).rounded(.up) * bytesPerPixel
    }

    static func limitText(_ r: RenderRequest) -> String {
        "more than the limit of \(mb(Double(r.maxMemory))); --max-memory raises it"
    }

    /// `11719 MB`, `6.3 MB` (tenths below 10 MB), rounded up.
    static func mb(_ b: Double) -> String {
        let m = b / 1_048_576
        if m >= 10 { return "\(Int(m.rounded(.up))) MB" }
        let tenths = Int((m * 10).rounded(.up))
        return tenths % 10 == 0 ? "\(tenths / 10) MB" : "\(tenths / 10).\(tenths % 10) MB"
    }

    /// The size of a regular file; nil for standard input, pipes, devices and missing files.
    static func regularFileSize(_ path: String) -> Int? {
        var st = stat()
        guard path != "-", stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(st.st_size)
    }

    /// The first `sampleBytes` of a file (fewer if it is shorter or unreadable).
    static func sample(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: sampleBytes)
        var filled = 0
        while filled < sampleBytes {
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, sampleBytes - filled, off_t(filled)) }
            if n > 0 { filled += n } else if n < 0 && errno == EINTR { continue } else { break }
        }
        return Array(head[..<filled])
    }

    /// As `PointReader` decides: the format option, else the extension, else the first byte.
    static func isGeoJSON(_ path: String, _ head: [UInt8], _ format: InputOptions.Format?) -> Bool {
        if let format { return format == .geojson }
        if PointReader.isGeoJSONName(path) { return true }
        let lower = path.lowercased()
        if [".csv", ".tsv", ".txt"].contains(where: { lower.hasSuffix($0) }) { return false }
        let first = head.first { ![0x20, 0x09, 0x0A, 0x0D, 0x1E, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Rows of a CSV of `size` bytes whose first bytes are `head`: the line breaks in the head,
    /// scaled to the size, less the header line. A head without a line break (one endless
    /// line) counts as one row.
    static func estimatedRows(size: Int, head: [UInt8]) -> Int {
        let breaks = head.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        if head.count >= size {   // the whole file
            let lines = breaks + (head.last.map { $0 == 0x0A ? 0 : 1 } ?? 0)
            return max(0, lines - 1)
        }
        guard breaks > 0 else { return 1 }
        return max(0, Int((Double(size) * Double(breaks) / Double(head.count)).rounded(.up)) - 1)
    }
}

extension PointReader {
    /// Reads one input within `request.maxMemory` (`--max-memory`) with `request.inputOptions`,
    /// for `cluster` and `inspect`: as a render would, less the image.
    public static func read(path: String, within request: RenderRequest) throws -> LoadedPoints {
        try RenderBounds.readInput(path: path, request)
    }
}
