import Foundation
import MapRenderCairo
import MapRenderCore

/// Turns a `FramePlan` into a scene and bytes, through the same layout and backend as a single map.
///
/// Markers are drawn where the plan shows them (not re-planned: no spreading of colocated pins),
/// bubbles with the plan's radius (the count's text only once a growing bubble has reached 60 % of
/// its size; ghosts without text, under the live bubbles).
struct FrameDrawing {
    let base: RenderRequest
    let basemaps: [ShapeSet]

    /// The layout options a frame uses: labels off when the plan placed them already.
    func layoutOptions(_ plan: FramePlan) -> LayoutOptions {
        var options = base.layout
        if plan.labels != nil { options.labelField = nil }
        return options
    }

    func projected(_ plan: FramePlan) -> ProjectedPoints {
        ProjectedPoints(points: plan.points, style: base.style, opacity: plan.opacity, scale: plan.scale)
    }

    /// The mark plan of a frame: its bubbles (ghosts included, placed by the planner's own code)
    /// and its drawn markers at their shown positions.
    func markPlan(_ plan: FramePlan, data: ProjectedPoints) -> MarkPlan {
        let items = plan.bubbles.enumerated().map { (j, b) in
            ClusterItem(id: j, pointIndex: nil, count: b.count, x: b.x, y: b.y, lon: 0, lat: 0, aggregates: b.aggregates)
        }
        var marks = MarkPlanner.plan(viewport: plan.viewport, data: data, clusters: items, leaves: { _ in nil },
                                     spread: SpreadOptions(tolerance: 0, maximum: 0), bubbles: base.style.cluster)
        marks.markerPoint = plan.drawn
        marks.markerX = []
        marks.markerY = []
        marks.markerX.reserveCapacity(plan.drawn.count)
        marks.markerY.reserveCapacity(plan.drawn.count)
        for i in plan.drawn {
            let p = plan.viewport.pixel(x: plan.shownX[i], y: plan.shownY[i])
            marks.markerX.append(p.x)
            marks.markerY.append(p.y)
        }
        return marks
    }

    func scene(_ plan: FramePlan, measurer: TextMeasuring) -> Scene {
        let data = projected(plan)
        let marks = markPlan(plan, data: data)
        var scene = MapLayout.scene(viewport: plan.viewport, scale: base.scale, style: base.style, data: data,
                                    plan: marks, basemaps: basemaps, options: layoutOptions(plan), measurer: measurer)
        // Bubbles: the planned radius, matched by pixel position and count (both come from the same numbers).
        var byPosition: [BubbleKey: [Int]] = [:]
        for (j, b) in plan.bubbles.enumerated() {
            let p = plan.viewport.pixel(x: b.x, y: b.y)
            byPosition[BubbleKey(p.x, p.y, b.count), default: []].append(j)
        }
        for (n, item) in scene.items.enumerated() {
            guard case .bubbles(var batch) = item else { continue }
            var ghosts: [BubbleBatch.Bubble] = [], live: [BubbleBatch.Bubble] = []
            for var bubble in batch.bubbles {
                let key = BubbleKey(bubble.x, bubble.y, bubble.count)
                guard var list = byPosition[key], !list.isEmpty else { live.append(bubble); continue }
                let planned = plan.bubbles[list.removeFirst()]
                byPosition[key] = list
                bubble.radius = planned.radius
                if planned.ghost || planned.radius < 0.6 * planned.targetRadius {
                    bubble.text = ""
                    bubble.textBox = Rect(x: bubble.x, y: bubble.y, width: 0, height: 0)
                }
                if planned.ghost { ghosts.append(bubble) } else { live.append(bubble) }
            }
            batch.bubbles = (ghosts + live).filter { $0.radius > 0 }
            scene.items[n] = .bubbles(batch)
        }
        if let labels = plan.labels, !labels.isEmpty {
            // Before the attribution, which stays on top.
            let at = scene.items.lastIndex { if case .textBox = $0 { return true } else { return false } } ?? scene.items.count
            scene.items.insert(contentsOf: labels.map { SceneItem.label($0) }, at: at)
        }
        if plan.labels != nil { scene.labelsDropped = plan.labelsDropped }
        return scene
    }

    func render(_ plan: FramePlan, format: OutputFormat, text: PangoText) throws -> Data {
        let measurer = CachingTextMeasurer(text)
        return try CairoRenderer(text: text).render(scene(plan, measurer: measurer), format: format)
    }

    /// The map without points (background, basemap, attribution): the still part of an animated SVG.
    func render(background v: Viewport, text: PangoText) throws -> Data {
        var options = base.layout
        options.labelField = nil
        let data = ProjectedPoints(points: PointSet(), style: base.style)
        let scene = MapLayout.scene(viewport: v, scale: base.scale, style: base.style, data: data, plan: nil,
                                    basemaps: basemaps, options: options, measurer: CachingTextMeasurer(text))
        return try CairoRenderer(text: text).render(scene, format: .svg)
    }

    private struct BubbleKey: Hashable {
        var x: UInt64, y: UInt64, count: Int
        init(_ x: Double, _ y: Double, _ count: Int) { self.x = x.bitPattern; self.y = y.bitPattern; self.count = count }
    }
}

/// Plain labels that keep their side of the marker from frame to frame while it stays free.
///
/// Placed in frame order (each frame's hints are the previous frame's positions), with the same
/// candidates, sizes and obstacles as a single map's labels: every marker, every bubble at its
/// drawn radius and the attribution. A label is placed for markers at least half grown.
struct LabelContinuity {
    let base: RenderRequest
    let measurer: TextMeasuring
    private var previous: [Int: LabelPlacer.Position] = [:]

    init(base: RenderRequest, measurer: TextMeasuring) {
        self.base = base
        self.measurer = measurer
    }

    /// Whether this pass places the labels (plain labels); callouts are left to the layout.
    static func applies(to base: RenderRequest) -> Bool {
        base.layout.labelField != nil && base.layout.labelStyle == .plain
    }

    mutating func place(_ plan: inout FramePlan, drawing: FrameDrawing) {
        guard let field = base.layout.labelField else { return }
        let data = drawing.projected(plan)
        let marks = drawing.markPlan(plan, data: data)
        let (batch, drawn) = MapLayout.markers(viewport: plan.viewport, data: data, plan: marks)
        let v = plan.viewport
        var obstacles: [Rect] = []
        obstacles.reserveCapacity(batch.count + plan.bubbles.count + 1)
        for k in 0..<batch.count { obstacles.append(batch.box(at: k)) }
        for b in plan.bubbles where b.radius > 0 {
            let p = v.pixel(x: b.x, y: b.y)
            obstacles.append(Rect(x: p.x - b.radius, y: p.y - b.radius, width: 2 * b.radius, height: 2 * b.radius))
        }
        let layout = base.layout
        if let text = layout.attribution, !text.isEmpty {
            let a = base.style.attribution
            let size = measurer.measure(text, font: FontSpec(family: a.font, size: a.size * layout.textScale, weight: .normal))
            let w = min(size.width + 6, v.width), h = size.height + 6
            obstacles.append(Rect(x: v.width - w, y: v.height - h, width: w, height: h))
        }

        let ls = base.style.label
        let font = FontSpec(family: ls.font, size: ls.size * layout.textScale, weight: ls.weight)
        let properties = plan.points.properties
        let column = properties.columnIndex(field)
        let priorityColumn = layout.labelPriority.flatMap { properties.columnIndex($0) }
        var labels: [LabelPlacer.Label] = [], texts: [String] = [], owners: [Int] = []
        var hints: [Int: LabelPlacer.Position] = [:]
        for (k, i) in drawn.enumerated() {
            guard let c = column, plan.presence[i] >= 0.5,
                  let text = properties.value(column: c, row: i).displayText, !text.isEmpty else { continue }
            let markBox = batch.box(at: k), anchorBox = batch.labelAnchor(at: k)
            var size = measurer.measure(text, font: font)
            size.width += 2 * ls.haloWidth
            size.height += 2 * ls.haloWidth
            let priority = priorityColumn.flatMap { properties.value(column: $0, row: i).numberValue } ?? 0
            if let hint = previous[plan.keys[i]] { hints[labels.count] = hint }
            labels.append(.init(markBox: markBox, anchorBox: anchorBox, size: size, priority: priority))
            texts.append(text)
            owners.append(plan.keys[i])
        }
        var options = LabelPlacer.Options()
        options.gap = ls.offset
        options.allowOverlap = layout.allowOverlap
        let result = LabelPlacer.place(labels, obstacles: obstacles, width: v.width, height: v.height,
                                       options: options, previous: hints)
        var marksOut: [LabelMark] = []
        var next: [Int: LabelPlacer.Position] = [:]
        let h = ls.haloWidth
        for j in result.order {
            guard let p = result.placements[j] else { continue }
            next[owners[j]] = p.position
            marksOut.append(LabelMark(text: texts[j], font: font, color: ls.color, halo: ls.halo, haloWidth: h,
                                      x: p.box.x + h, y: p.box.y + h, width: p.box.width - 2 * h, height: p.box.height - 2 * h))
        }
        previous = next
        plan.labels = marksOut
        plan.labelsDropped = result.droppedCount
    }
}
