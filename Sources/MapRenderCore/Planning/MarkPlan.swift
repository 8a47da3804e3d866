import Foundation

/// Where every point goes at the rendered zoom: drawn alone, inside one bubble, or spread in a group.
///
/// Computed once from one consistent state (the points' projected positions and the cluster items of
/// this zoom) and never mutated afterwards: layout reads it to make the scene.
public struct MarkPlan: Sendable {
    /// A point drawn as its own marker: its index and anchor in CSS pixels (offset when spread).
    public var markerPoint: [Int] = []
    public var markerX: [Double] = []
    public var markerY: [Double] = []

    public struct Bubble: Sendable, Equatable {
        public var x: Double, y: Double
        public var count: Int
        /// supercluster's cluster_id, or nil for a colocated group too large to spread.
        public var clusterID: Int?
        public var aggregates: [String: Double]
        /// The member that names the bubble when labelling by priority (its most important point).
        public var representative: Int?
        /// Drawn radius, CSS px (the style's step for `count`; an animation frame's growing size).
        public var radius: Double
        /// The text shown in the bubble: the abbreviated count, or the style's aggregated `text-field`.
        public var text: String
        /// Whether `text` is drawn (where it fits the bubble as drawn: `BubbleTextFit`).
        public var showsText: Bool
        /// Whether the bubble may be named (a label or callout): false for a bubble of an
        /// animation frame growing in or shrinking away below 60 % of its size.
        public var nameable = true
        /// Whether every member carries the representative's label value (`BubbleNaming.allShare`):
        /// the bubble is named by that value alone ("ORD"), not with the count of the others.
        public var membersShareName = false
        /// The number an animation frame shows for it while its points travel in or out (a count
        /// between its ends), when not `count`: its text and its label's "+N" say it. nil: `count`.
        public var shownCount: Int?
        /// Whether this is a small stack's badge (`SpreadFallback.badgeScale` of the style's
        /// radius, not an animation's shrunken bubble): its count is always shown.
        public var badge = false

        public init(x: Double, y: Double, count: Int, clusterID: Int?, aggregates: [String: Double],
                    representative: Int?, radius: Double, text: String, showsText: Bool = true) {
            self.x = x; self.y = y; self.count = count; self.clusterID = clusterID; self.aggregates = aggregates
            self.representative = representative; self.radius = radius; self.text = text; self.showsText = showsText
        }

        /// The square the bubble's disc fills.
        public var box: Rect { Rect(x: x - radius, y: y - radius, width: 2 * radius, height: 2 * radius) }

        /// A bubble as a still map draws it: radius and text from the style.
        public init(x: Double, y: Double, count: Int, clusterID: Int?, aggregates: [String: Double],
                    representative: Int?, style: Style.Cluster) {
            self.init(x: x, y: y, count: count, clusterID: clusterID, aggregates: aggregates,
                      representative: representative, radius: style.step(for: count).radius,
                      text: Self.text(count: count, aggregates: aggregates, style: style))
        }

        /// The abbreviated count, or the aggregate named by the style's `text-field` when the bubble has
        /// it (`ClusterItem.abbreviateAggregate`: 12.3M, 1.2B).
        public static func text(count: Int, aggregates: [String: Double], style: Style.Cluster) -> String {
            if let f = style.textField, let value = aggregates[f] { return ClusterItem.abbreviateAggregate(value) }
            return ClusterItem.abbreviate(count)
        }
    }
    public var bubbles: [Bubble] = []

    public struct SpreadGroup: Sendable, Equatable {
        /// The shared true position, CSS px.
        public var x: Double, y: Double
        /// Member point indexes, in spread order (by id, then input order).
        public var members: [Int]
        /// Where the members' markers start in `markerPoint` (they follow in member order).
        public var firstMarker: Int
        /// How the members are laid out (`SpreadFallback` picks a compact one when the planned
        /// ring or spiral has no room).
        public var layout: SpreadLayout = .planned
    }
    public var spreadGroups: [SpreadGroup] = []
    /// Spread groups drawn as a bubble because spreading them found no room (`SpreadFallback`),
    /// counted when the bubble touches the image.
    public var spreadFallbacks = 0
    /// Spread groups with no room drawn stacked at their true position instead of as a bubble
    /// (at most `SpreadFallback.stackMaximum` small dots: `SpreadFallback`), counted when one of
    /// their markers touches the image.
    public var spreadStacked = 0

    /// The side each label or callout should try first (an animation frame keeps the sides of the
    /// frame before); empty for a still map.
    public var labelHints = LabelSides()
    /// Per point index, its label's opacity when below 1 (an animation frame fades a label with its
    /// marker); empty for a still map.
    public var labelOpacity: [Int: Double] = [:]
    /// Per bubble representative (point index), its bubble's name's opacity when below 1 (an
    /// animation frame fading a name out on one side and in on another); empty for a still map.
    public var bubbleLabelOpacity: [Int: Double] = [:]

    public init() {}

    public var pointsInBubbles: Int { bubbles.reduce(0) { $0 + $1.count } }
}
