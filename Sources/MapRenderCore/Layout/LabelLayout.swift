import Foundation

/// Places one label (or callout) per drawn marker without overlaps, in priority order.
///
/// Every marker, bubble, spread leg and the attribution are obstacles; each label takes the first
/// free position around its marker (right, left, above, below, then the diagonals), or is dropped.
/// Plain labels (`placePlain`) and callouts (`placeCallouts`) are two placements over the same
/// candidates: the drawn markers that have a text, in draw order.
enum LabelLayout {
    struct Output {
        var items: [SceneItem]
        var dropped: Int
        /// Per point index, the side its plain label took.
        var sides: [Int: LabelSide] = [:]
    }

    /// What both placements read: the label column, its ranking and the label style.
    struct Context {
        var data: ProjectedPoints
        var column: Int
        var priorityColumn: Int?
        var style: Style.Label
        var font: FontSpec
        var viewport: Viewport
        var obstacles: [Rect]
        var allowOverlap: Bool
        /// Per point index: the side its label tries first (an animation frame keeps the previous
        /// frame's side) and its opacity when below 1 (it fades with its marker).
        var hints: [Int: LabelSide] = [:]
        var opacity: [Int: Double] = [:]

        /// The row's label, cut at `LabelText`'s limit with an ellipsis; nil when empty.
        func text(_ row: Int) -> String? {
            guard let t = data.points.properties.value(column: column, row: row).displayText.map(LabelText.truncated),
                  !t.isEmpty else { return nil }
            return t
        }

        func priority(_ row: Int) -> Double {
            priorityColumn.flatMap { data.points.properties.value(column: $0, row: row).numberValue } ?? 0
        }
    }

    static func place(field: String, drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble] = [],
                      data: ProjectedPoints, style: Style,
                      viewport v: Viewport, obstacles: [Rect], options: LayoutOptions,
                      measurer: TextMeasuring, hints: [Int: LabelSide] = [:],
                      opacity: [Int: Double] = [:]) -> Output {
        guard let col = data.points.properties.columnIndex(field) else { return Output(items: [], dropped: 0) }
        let ls = style.label
        var context = Context(data: data, column: col,
                              priorityColumn: options.labelPriority.flatMap { data.points.properties.columnIndex($0) },
                              style: ls, font: FontSpec(family: ls.font, size: ls.size * options.textScale, weight: ls.weight),
                              viewport: v, obstacles: obstacles, allowOverlap: options.allowOverlap)
        context.hints = hints
        context.opacity = opacity
        switch options.labelStyle {
        case .callout:
            return placeCallouts(drawn: drawn, batch: batch, context: context,
                                 maxWidth: ls.calloutMaxWidth * options.textScale, measurer: measurer)
        case .plain:
            return placePlain(drawn: drawn, batch: batch, bubbles: bubbles, context: context, measurer: measurer)
        }
    }

    /// Callouts, highest priority first (ties in draw order): each measured wrapped at `maxWidth`
    /// and placed by `Callout.place` around its pin, or dropped.
    static func placeCallouts(drawn: [Int], batch: MarkerBatch, context c: Context, maxWidth: Double,
                              measurer: TextMeasuring) -> Output {
        var texts: [String] = [], labels: [LabelPlacer.Label] = [], anchors: [(x: Double, y: Double, pin: Rect)] = []
        for (k, i) in drawn.enumerated() {
            guard let text = c.text(i) else { continue }
            let markBox = batch.box(at: k)
            let size = measurer.measure(text, font: c.font, maxWidth: maxWidth)
            labels.append(.init(markBox: markBox, anchorBox: batch.labelAnchor(at: k), size: size, priority: c.priority(i)))
            anchors.append((batch.x[k], markBox.y, markBox))
            texts.append(text)
        }
        let v = c.viewport, ls = c.style
        var index = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
        index.insert(contentsOf: c.obstacles)
        var opts = Callout.Options()
        opts.allowOverlap = c.allowOverlap
        let order = labels.indices.sorted {
            labels[$0].priority != labels[$1].priority ? labels[$0].priority > labels[$1].priority : $0 < $1
        }
        var items: [SceneItem] = []
        var dropped = 0
        for j in order {
            let a = anchors[j]
            guard let placed = Callout.place(anchor: (a.x, a.y), pin: a.pin, text: labels[j].size, index: &index, options: opts) else {
                dropped += 1
                continue
            }
            items.append(.callout(CalloutMark(
                text: texts[j], font: c.font, color: ls.color, fill: ls.calloutFill, stroke: ls.calloutStroke,
                strokeWidth: 1, box: placed.box, cornerRadius: placed.cornerRadius, pointer: placed.pointer,
                textOrigin: placed.textOrigin, maxWidth: maxWidth)))
        }
        return Output(items: items, dropped: dropped)
    }

    /// Plain labels with a halo: cluster labels first (a bubble named after its most important
    /// point), then point labels, each group highest priority first (ties in draw order).
    ///
    /// Texts are measured lazily: most labels of a dense map are blocked anyway, and shaping text
    /// is the expensive part of layout. Before a text is measured, a box smaller than any label it
    /// could make (one pixel wide, 80% of a line high, plus the halo) is tried at every position:
    /// each real box contains it, so when all are blocked the label is dropped unmeasured.
    static func placePlain(drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble], context c: Context,
                           measurer: TextMeasuring) -> Output {
        var texts: [String] = [], labels: [LabelPlacer.Label] = []
        // Per candidate: its point (-1 for a bubble's label) and opacity (quantised as its marker's).
        var owners: [Int] = [], alphas: [Double] = []
        let unmeasured = TextSize(width: 0, height: 0)
        for b in bubbles {
            guard let rep = b.representative, let text = c.text(rep) else { continue }
            let box = Rect(x: b.x - b.radius, y: b.y - b.radius, width: 2 * b.radius, height: 2 * b.radius)
            labels.append(.init(markBox: box, anchorBox: box, size: unmeasured, priority: c.priority(rep)))
            texts.append(text)
            owners.append(-1); alphas.append(1)
        }
        let bubbleLabels = labels.count
        for (k, i) in drawn.enumerated() {
            guard let text = c.text(i) else { continue }
            // Nothing to draw below half a step of the marker's quantised opacity.
            let alpha = c.opacity[i].map { max(0, min(1, ($0 * 16).rounded() / 16)) } ?? 1
            guard alpha > 0 else { continue }
            owners.append(i); alphas.append(alpha)
            let priority = c.priority(i)
            labels.append(.init(markBox: batch.box(at: k), anchorBox: batch.labelAnchor(at: k), size: unmeasured,
                                priority: priority.isNaN ? -.infinity : priority))
            texts.append(text)
        }
        let order = labels.indices.sorted {
            let clusterA = $0 < bubbleLabels, clusterB = $1 < bubbleLabels
            if clusterA != clusterB { return clusterA }   // cluster labels first
            return labels[$0].priority != labels[$1].priority ? labels[$0].priority > labels[$1].priority : $0 < $1
        }
        let v = c.viewport, ls = c.style, h = ls.haloWidth, gap = ls.offset
        let lineHeight = measurer.measure("Hg", font: c.font).height
        let probe = TextSize(width: 1 + 2 * h, height: 0.8 * lineHeight + 2 * h)
        // Fixed obstacles in a raster (O(1) queries however dense); placed labels in the grid index.
        var raster = ObstacleRaster(width: v.width, height: v.height)
        for o in c.obstacles { raster.add(o) }
        raster.finish()
        var placedLabels = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
        func free(_ r: Rect) -> Bool { raster.isFree(r) && placedLabels.canPlace(r) }
        var items: [SceneItem] = []
        var dropped = 0
        var sides: [Int: LabelSide] = [:]
        for j in order {
            var label = labels[j]
            let hint = owners[j] >= 0 ? c.hints[owners[j]] : nil
            if !c.allowOverlap {
                label.size = probe
                guard LabelPlacer.Position.allCases.contains(where: { free(LabelPlacer.box($0, for: label, gap: gap)) }) else {
                    dropped += 1
                    continue
                }
            }
            // The halo reaches beyond the text: reserve it so halos do not overlap either.
            let text = measurer.measure(texts[j], font: c.font)
            label.size = TextSize(width: text.width + 2 * h, height: text.height + 2 * h)
            // A hinted side is tried first.
            var placed: (box: Rect, side: LabelSide)?
            if c.allowOverlap {
                let side = hint ?? .right
                placed = (LabelPlacer.box(side, for: label, gap: gap), side)
            } else {
                let sides = hint.map { h in [h] + LabelSide.allCases.filter { $0 != h } } ?? LabelSide.allCases
                placed = sides.lazy.map { (LabelPlacer.box($0, for: label, gap: gap), $0) }.first { free($0.0) }
            }
            guard let (b, side) = placed else {
                dropped += 1
                continue
            }
            placedLabels.insert(b)
            var mark = LabelMark(text: texts[j], font: c.font, color: ls.color, halo: ls.halo, haloWidth: h,
                                 x: b.x + h, y: b.y + h, width: b.width - 2 * h, height: b.height - 2 * h)
            mark.opacity = alphas[j]
            items.append(.label(mark))
            if owners[j] >= 0 { sides[owners[j]] = side }
        }
        return Output(items: items, dropped: dropped, sides: sides)
    }
}
