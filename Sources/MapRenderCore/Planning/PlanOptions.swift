/// What planning needs to know besides the points and the style: the view, the image size, and
/// how points are clustered, spread and ranked for labels.
///
/// `RenderRequest.planOptions` builds one; animation frames build one per frame.
public struct PlanOptions: Sendable, Equatable {
    public var view: ViewSpec = .fit(zoom: nil)
    /// Image size in CSS pixels.
    public var width = 1024.0
    public var height = 768.0
    /// Empty margin around the data when fitting, CSS px.
    public var padding = 24.0
    /// The highest zoom a fitted view may take (a single point gets min(this, 14)).
    public var maxZoom = 16.0
    /// Clustering at the view's zoom (supercluster semantics); nil draws every point.
    public var clustering: ClusterOptions? = ClusterOptions()
    /// Aggregated cluster properties (`--cluster-sum FIELD`, ...).
    public var aggregates: [ClusterAggregate] = []
    public var spread = SpreadOptions()
    /// With a label field and a label priority, each bubble is named after its highest-priority member.
    public var labelField: String?
    public var labelPriority: String?
    /// Lines and polygons a fitted view shows besides the points.
    public var shapes = FitSamples()
    /// `--integer-zoom` (with raster tiles): every view this choice makes is snapped to a whole
    /// zoom for this output scale, before its marks are planned; nil: fractional zoom.
    public var integerZoomScale: Double?

    public init() {}
}
