/// Options of the layout stage that are not in the style.
public struct LayoutOptions: Sendable {
    /// Property whose value labels each marker.
    public var labelField: String?
    /// Text in the bottom-right corner.
    public var attribution: String?
    /// Scales text independently of `--scale`.
    public var textScale: Double = 1
    /// Numeric property ranking labels: larger values are placed first (`--label-priority`).
    public var labelPriority: String?
    /// Place every label at its first position, overlaps or not (`--allow-overlap`).
    public var allowOverlap = false
    public enum LabelStyle: String, Sendable, CaseIterable { case plain, callout }
    public var labelStyle: LabelStyle = .plain
    /// On a dense dot map, the placement of a still map: a leading place's name whose sides are
    /// all taken is set away from its dot with a thin leader line (`LeaderLabel`), as an atlas
    /// does, before it is dropped; names may take the positions halfway between two sides
    /// (`LabelLayout.halfwayBoxes`); the first names are planned together (`DenseLabelPlan`).
    /// An animation's frames do none of it: their labels keep one of their eight sides from frame
    /// to frame.
    public var leaderLabels = true
    /// Draw a metric and imperial scale bar (bottom left).
    public var scaleBar = false
    /// Draw a legend of the marker colours when the style's fill is categorical (top right).
    public var legend = false
    /// Draw each point's simplestyle `marker-symbol` (a digit, letter or text of up to three
    /// characters) inside its marker (`MarkerTextLayout`). A still map does; an animation does
    /// not (its animated SVG draws the markers from their style alone).
    public var markerSymbols = false
    /// Keep, per marker of the scene's marker batch, the point it draws (`Scene.markerPoints`):
    /// an animated SVG follows each point's marker through the frames' scenes by it.
    public var keepsMarkerPoints = false

    public init() {}
}
