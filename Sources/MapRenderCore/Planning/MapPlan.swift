/// Everything layout needs to draw one map's data: the view, the projected and styled points, and
/// where each point goes (marker, bubble, spread group).
///
/// A value made once by `MapPlanner` (or by an animation frame) and only read afterwards.
public struct MapPlan: Sendable {
    public var viewport: Viewport
    public var data: ProjectedPoints
    public var marks: MarkPlan
    /// Whether the view was fitted a second time to make room for spread rings and bubbles.
    public var refitted: Bool

    public init(viewport: Viewport, data: ProjectedPoints, marks: MarkPlan, refitted: Bool = false) {
        self.viewport = viewport; self.data = data; self.marks = marks; self.refitted = refitted
    }
}
