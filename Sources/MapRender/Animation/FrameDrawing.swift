import Foundation
import MapRenderCairo
import MapRenderCore

/// Turns a `FramePlan` into a scene and bytes through the same layout and backend as a still map:
/// its mark plan goes to `MapLayout` as it is (labels placed there by the one label placer), with
/// each point's fade as the markers' and labels' opacity and size.
struct FrameDrawing {
    let base: RenderRequest
    let basemaps: [ShapeSet]
    /// The data's lines and polygons, the first keyframe's (still: an animation moves points only).
    let shapes: ShapeSet
    /// `--trail`: each drawn point's recent path, under the markers (nil: none).
    var trails: AnimationTrails? = nil
    /// `--basemap-style`'s layers by view: read, fetched and decoded once per view, the same in
    /// every frame on it.
    let styled = StyledViews()
    /// Scenes keep their markers' points (`Scene.markerPoints`: the animated SVG reads them).
    var keepsMarkerPoints = false

    /// The frame's points projected and styled, faded as the plan says.
    func data(_ plan: FramePlan) -> ProjectedPoints {
        // All 1 (a frame at rest, mostly): no factors, as a still map.
        ProjectedPoints(points: plan.points, style: base.style,
                        opacity: plan.opacity.contains { $0 < 1 } ? plan.opacity : nil,
                        scale: plan.scale.contains { $0 < 1 } ? plan.scale : nil)
    }

    /// The frame's scene, and the side each label or callout took (hints for the next frame).
    func layout(_ plan: FramePlan, measurer: TextMeasuring) -> (scene: Scene, labelSides: LabelSides) {
        let tiles = self.tiles(plan.viewport)
        var layers = self.layers(tiles)
        var style = base.style, options = TileStage.layout(base.layout, tiles: tiles)
        if let s = styled.output(base, plan.viewport) {
            BasemapStyleStage.apply(s, request: base, overTiles: tiles?.marks.isEmpty == false, layers: &layers, style: &style, options: &options)
        }
        if let t = trails, let trail = t.layer(plan.trail, colors: AnimationTrails.colors(plan: plan, style: base.style)),
           let points = layers.firstIndex(where: { if case .points = $0 { return true } else { return false } }) {
            // Under the points, over the basemap and the data's lines.
            layers.insert(.shapes(trail.0, trail.1), at: points)
        }
        options.keepsMarkerPoints = keepsMarkerPoints
        options.leaderLabels = false
        return MapLayout.layout(viewport: plan.viewport, scale: base.scale, style: style, data: data(plan),
                                plan: plan.marks, layers: layers, options: options, measurer: measurer)
    }

    /// The frame's layers: its tiles, the basemap, the data's lines and polygons, the points.
    func layers(_ tiles: TileBasemap?) -> [MapLayer] {
        MapLayer.standard(style: base.style, rasters: tiles?.marks ?? [], basemaps: basemaps, shapes: shapes)
    }

    /// Raster tiles under the frame (`--tiles`), as under a still map: through the process's tile
    /// service, so frames on one view fetch and decode each tile once. Problems (and
    /// `--tiles-strict`) were reported by `AnimationRenderer` for the first frame's view.
    func tiles(_ v: Viewport) -> TileBasemap? {
        try? TileStage.run(base, viewport: v)
    }

    func render(_ scene: Scene, format: OutputFormat, text: PangoText) throws -> Data {
        try CairoRenderer(text: text).render(scene, format: format, quality: base.quality)
    }

    /// The map without points (background, basemap, attribution): the still part of an animated SVG.
    func render(background v: Viewport, text: PangoText) throws -> Data {
        var options = base.layout
        options.labelField = nil
        let data = ProjectedPoints(points: PointSet(), style: base.style)
        let tiles = self.tiles(v)
        var layers = self.layers(tiles), style = base.style
        options = TileStage.layout(options, tiles: tiles)
        if let s = styled.output(base, v) {
            BasemapStyleStage.apply(s, request: base, overTiles: tiles?.marks.isEmpty == false, layers: &layers, style: &style, options: &options)
        }
        let scene = MapLayout.scene(viewport: v, scale: base.scale, style: style, data: data, plan: nil,
                                    layers: layers, options: options, measurer: CachingTextMeasurer(text))
        return try CairoRenderer(text: text).render(scene, format: .svg)
    }
}

/// `--basemap-style`'s output for each view an animation draws, made once per view (frames are
/// laid out on several threads). Problems were reported for the first view by `AnimationRenderer`.
final class StyledViews: @unchecked Sendable {
    private let lock = NSLock()
    private var byView: [String: BasemapStyleStage.Output] = [:]
    private var order: [String] = []
    /// Views kept (an animation that follows its points has a view per frame: the oldest go).
    static let kept = 8

    func output(_ base: RenderRequest, _ v: Viewport) -> BasemapStyleStage.Output? {
        guard base.basemapStyle != nil else { return nil }
        let key = "\(v.centerX) \(v.centerY) \(v.zoom) \(v.width) \(v.height)"
        lock.lock(); defer { lock.unlock() }
        if let o = byView[key] { return o }
        guard let o = try? BasemapStyleStage.run(base, viewport: v) else { return nil }
        byView[key] = o
        order.append(key)
        if order.count > Self.kept { byView[order.removeFirst()] = nil }
        return o
    }
}
