import MapRenderCore

/// What a render did, written by `--summary` as JSON.
public struct RenderSummary: Sendable, Codable {
    public struct Input: Sendable, Codable {
        public var files: [String]
        public var format: String
        public var recordsRead: Int
        public var pointsRead: Int
        public var skipped: [String: Int]
        public var skippedGeometries: [String: Int]
    }

    public struct View: Sendable, Codable {
        /// [longitude, latitude]
        public var center: [Double]
        public var zoom: Double
        /// [west, south, east, north]; west > east when the view crosses the antimeridian.
        public var bounds: [Double]
        /// [width, height] in CSS pixels.
        public var size: [Double]
        public var scale: Double
    }

    public var input: Input
    public var pointsDrawn: Int
    public var view: View
    public var marks: [String: Int]
    /// Milliseconds per stage.
    public var timings: [String: Double]
    public var output: String?
    public var format: String
    public var bytes: Int

    public init(input: Input, pointsDrawn: Int, view: View, marks: [String: Int],
                timings: [String: Double], output: String?, format: String, bytes: Int) {
        self.input = input; self.pointsDrawn = pointsDrawn; self.view = view; self.marks = marks
        self.timings = timings; self.output = output; self.format = format; self.bytes = bytes
    }

    static func input(files: [String], report: InputReport) -> Input {
        Input(files: files, format: report.format, recordsRead: report.recordsRead, pointsRead: report.pointsRead,
              skipped: Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.key.rawValue, $0.value) }),
              skippedGeometries: report.skippedGeometries)
    }
}
