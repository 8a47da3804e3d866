import MapRenderCore
import MapRenderTiles

/// What a render did, written by `--summary` as JSON.
public struct RenderSummary: Sendable, Codable {
    public struct Input: Sendable, Codable {
        public var files: [String]
        public var format: String
        public var recordsRead: Int
        public var pointsRead: Int
        public var skipped: [String: Int]
        public var skippedGeometries: [String: Int]
        /// Points removed by `--filter`.
        public var filteredOut: Int
        /// Features drawn by geometry type: "Point" (points read), "LineString" (lines and
        /// MultiLineStrings), "Polygon" (one per polygon of a MultiPolygon).
        public var geometries: [String: Int]? = nil
    }

    public struct View: Sendable, Codable {
        /// The center, with named keys (`{"lat": 48.85, "lon": 2.35}`): `--center` takes LAT,LON,
        /// and an unnamed pair would read either way.
        public var center: Center
        public var zoom: Double
        /// [west, south, east, north]; west > east when the view crosses the antimeridian.
        public var bounds: [Double]
        /// [width, height] in CSS pixels.
        public var size: [Double]
        public var scale: Double
    }

    public struct Center: Sendable, Codable, Equatable {
        public var lat: Double
        public var lon: Double
    }

    /// Where the points went: every point read is drawn alone (`pointsDrawn`), inside one bubble,
    /// spread in a group (those are also drawn, so they count in `pointsDrawn` too), or outside the view.
    public struct Clusters: Sendable, Codable {
        public var drawn: Int
        public var pointsInside: Int
        public var spreadGroups: Int
        public var spreadPoints: Int
        /// Number of spread groups per group size ("5": 2 means two groups of five).
        public var spreadGroupSizes: [String: Int]
        public var pointsOutsideView: Int
        /// Spread groups drawn as a bubble with their count because spreading found no room (those
        /// whose bubble touches the image: a group off the image is not counted).
        public var spreadFallbacks: Int = 0
        /// Spread groups with no room drawn stacked (as if not spread) instead of as a bubble: groups of
        /// small dots, and groups whose bubble would sit on another bubble (those with a marker on the image).
        public var spreadStacked: Int = 0
        /// Drawn markers and bubbles that reach beyond the image edge (0 unless the view was fixed).
        public var marksOutside: Int = 0
    }

    public var input: Input
    /// Markers drawn (points drawn alone, including spread pins).
    public var pointsDrawn: Int
    public var clusters: Clusters
    public var view: View
    public var marks: [String: Int]
    /// Labels placed and dropped (no free position) when labelling.
    public var labelsPlaced: Int
    public var labelsDropped: Int
    /// Milliseconds per stage.
    public var timings: [String: Double]
    public var output: String?
    public var format: String
    public var bytes: Int
    /// Raster tiles (`--tiles`): requested, fromCache, fetched, missing, failed.
    public var tiles: TileStats?
    /// `--basemap-style`: its vector tiles, features drawn, and what of the style is not drawn.
    public var basemapStyle: BasemapStyleSummary?

    public init(input: Input, pointsDrawn: Int, clusters: Clusters, view: View, marks: [String: Int],
                timings: [String: Double], output: String?, format: String, bytes: Int) {
        self.input = input; self.pointsDrawn = pointsDrawn; self.clusters = clusters; self.view = view; self.marks = marks
        self.labelsPlaced = marks["label", default: 0] + marks["callout", default: 0]
        self.labelsDropped = 0
        self.timings = timings; self.output = output; self.format = format; self.bytes = bytes
    }

    static func input(files: [String], report: InputReport) -> Input {
        Input(files: files, format: report.format, recordsRead: report.recordsRead, pointsRead: report.pointsRead,
              skipped: Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.key.rawValue, $0.value) }),
              skippedGeometries: report.skippedGeometries, filteredOut: report.filteredOut)
    }
}

extension RenderSummary {
    /// The summary of one single-map render: where the plan put the points and what the scene drew.
    init(request: RenderRequest, report: InputReport, plan: MapPlan, shapes: ShapeSet = ShapeSet(), scene: Scene,
         timings: [String: Double], bytes: Int) {
        let v = plan.viewport, b = v.bounds
        let markersDrawn = scene.markers.reduce(0) { $0 + $1.count }
        let bubbles = scene.bubbles
        let inBubbles = bubbles.reduce(0) { $0 + $1.count }
        let spreadSizes = plan.marks.spreadGroups.map(\.members.count)
        self.init(
            input: Self.input(files: request.inputs, report: report),
            pointsDrawn: markersDrawn,
            clusters: .init(drawn: bubbles.count, pointsInside: inBubbles,
                            spreadGroups: spreadSizes.count, spreadPoints: spreadSizes.reduce(0, +),
                            spreadGroupSizes: Dictionary(spreadSizes.map { (String($0), 1) }, uniquingKeysWith: +),
                            pointsOutsideView: plan.data.points.count - markersDrawn - inBubbles),
            view: .init(center: Center(lat: v.centerLatitude, lon: v.centerLongitude), zoom: v.zoom,
                        bounds: [b.west, b.south, b.east, b.north], size: [v.width, v.height], scale: request.scale),
            marks: scene.markCounts, timings: timings, output: nil, format: request.format.rawValue, bytes: bytes)
        labelsDropped = scene.labelsDropped
        var geometries = shapes.countsByKind
        if plan.data.points.count > 0 || geometries.isEmpty { geometries["Point"] = plan.data.points.count }
        input.geometries = geometries
        clusters.spreadFallbacks = plan.marks.spreadFallbacks
        clusters.spreadStacked = plan.marks.spreadStacked
        let image = Rect(x: -0.5, y: -0.5, width: v.width + 1, height: v.height + 1)
        var outside = scene.bubbles.filter { !image.contains($0.box) }.count
        for m in scene.markers { for k in 0..<m.count where !image.contains(m.box(at: k)) { outside += 1 } }
        clusters.marksOutside = outside
    }
}
