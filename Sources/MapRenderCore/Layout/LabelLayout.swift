import Foundation

/// Places one label (or callout) per drawn marker without overlaps, in priority order.
///
/// Every marker, bubble, spread leg and the attribution are obstacles; each label takes the first
/// free position around its marker (right, left, above, below, then the diagonals), or is dropped.
enum LabelLayout {
    struct Output {
        var items: [SceneItem]
        var dropped: Int
        /// Per point index, the side its plain label took.
        var sides: [Int: LabelSide] = [:]
    }

    static func place(field: String, drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble] = [],
                      data: ProjectedPoints, style: Style,
                      viewport v: Viewport, obstacles: [Rect], options: LayoutOptions,
                      measurer: TextMeasuring, hints: [Int: LabelSide] = [:],
                      opacity: [Int: Double] = [:]) -> Output {
        guard let col = data.points.properties.columnIndex(field) else { return Output(items: [], dropped: 0) }
        let priorityCol = options.labelPriority.flatMap { data.points.properties.columnIndex($0) }
        let ls = style.label
        let font = FontSpec(family: ls.font, size: ls.size * options.textScale, weight: ls.weight)
        let callout = options.labelStyle == .callout
        let maxWidth = ls.calloutMaxWidth * options.textScale

        // Candidates in marker draw order. Plain labels are measured lazily (below): most labels of a
        // dense map are blocked anyway, and shaping text is the expensive part of layout.
        var texts: [String] = [], labels: [LabelPlacer.Label] = [], anchors: [(x: Double, y: Double, pin: Rect)] = []
        // Per candidate: its point (-1 for a bubble's label) and opacity (quantised as its marker's).
        var owners: [Int] = [], alphas: [Double] = []
        // Cluster labels first: a bubble named after its most important point (with ranked labels)
        // is placed before every point label.
        if !callout {
            for b in bubbles {
                guard let rep = b.representative,
                      let text = data.points.properties.value(column: col, row: rep).displayText, !text.isEmpty else { continue }
                let box = Rect(x: b.x - b.radius, y: b.y - b.radius, width: 2 * b.radius, height: 2 * b.radius)
                let value = priorityCol.flatMap { data.points.properties.value(column: $0, row: rep).numberValue } ?? 0
                labels.append(.init(markBox: box, anchorBox: box, size: TextSize(width: 0, height: 0), priority: value))
                texts.append(text)
                owners.append(-1); alphas.append(1)
            }
        }
        let bubbleLabels = labels.count
        for (k, i) in drawn.enumerated() {
            guard let text = data.points.properties.value(column: col, row: i).displayText, !text.isEmpty else { continue }
            // A label fades with its marker (an animation frame): nothing to draw below half a step.
            let alpha = opacity[i].map { max(0, min(1, ($0 * 16).rounded() / 16)) } ?? 1
            guard alpha > 0 else { continue }
            owners.append(i); alphas.append(alpha)
            let markBox = batch.box(at: k), anchorBox = batch.labelAnchor(at: k)
            let priority = priorityCol.flatMap { data.points.properties.value(column: $0, row: i).numberValue } ?? 0
            if callout {
                let size = measurer.measure(text, font: font, maxWidth: maxWidth)
                labels.append(.init(markBox: markBox, anchorBox: anchorBox, size: size, priority: priority))
                anchors.append((batch.x[k], markBox.y, markBox))
            } else {
                labels.append(.init(markBox: markBox, anchorBox: anchorBox, size: TextSize(width: 0, height: 0),
                                    priority: priority.isNaN ? -.infinity : priority))
            }
            texts.append(text)
        }
        var items: [SceneItem] = []
        var dropped = 0
        if callout {
            var index = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
            index.insert(contentsOf: obstacles)
            var opts = Callout.Options()
            opts.allowOverlap = options.allowOverlap
            let order = labels.indices.sorted {
                labels[$0].priority != labels[$1].priority ? labels[$0].priority > labels[$1].priority : $0 < $1
            }
            for j in order {
                let a = anchors[j]
                guard let c = Callout.place(anchor: (a.x, a.y), pin: a.pin, text: labels[j].size, index: &index, options: opts) else {
                    dropped += 1
                    continue
                }
                items.append(.callout(CalloutMark(
                    text: texts[j], font: font, color: ls.color, fill: ls.calloutFill, stroke: ls.calloutStroke,
                    strokeWidth: 1, box: c.box, cornerRadius: c.cornerRadius, pointer: c.pointer,
                    textOrigin: c.textOrigin, maxWidth: maxWidth)))
            }
            return Output(items: items, dropped: dropped)
        }
        // Plain labels, highest priority first (ties in draw order). Before a text is measured, a box
        // smaller than any label it could make (one pixel wide, 80% of a line high, plus the halo)
        // is tried at every position: each real box contains it, so when all are blocked the label
        // is dropped unmeasured.
        let h = ls.haloWidth
        let lineHeight = measurer.measure("Hg", font: font).height
        let probe = TextSize(width: 1 + 2 * h, height: 0.8 * lineHeight + 2 * h)
        let order = labels.indices.sorted {
            let clusterA = $0 < bubbleLabels, clusterB = $1 < bubbleLabels
            if clusterA != clusterB { return clusterA }   // cluster labels first
            return labels[$0].priority != labels[$1].priority ? labels[$0].priority > labels[$1].priority : $0 < $1
        }
        let gap = ls.offset
        // Fixed obstacles in a raster (O(1) queries however dense); placed labels in the grid index.
        var raster = ObstacleRaster(width: v.width, height: v.height)
        for o in obstacles { raster.add(o) }
        raster.finish()
        var sides: [Int: LabelSide] = [:]
        var placedLabels = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
        func free(_ r: Rect) -> Bool { raster.isFree(r) && placedLabels.canPlace(r) }
        for j in order {
            var label = labels[j]
            // A hinted side (the side the label had in the previous animation frame) is tried first.
            let hint = owners[j] >= 0 ? hints[owners[j]] : nil
            if !options.allowOverlap {
                label.size = probe
                guard LabelPlacer.Position.allCases.contains(where: { free(LabelPlacer.box($0, for: label, gap: gap)) }) else {
                    dropped += 1
                    continue
                }
            }
            // The halo reaches beyond the text: reserve it so halos do not overlap either.
            let text = measurer.measure(texts[j], font: font)
            label.size = TextSize(width: text.width + 2 * h, height: text.height + 2 * h)
            var placed: (box: Rect, side: LabelSide)?
            if options.allowOverlap {
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
            var mark = LabelMark(text: texts[j], font: font, color: ls.color, halo: ls.halo, haloWidth: h,
                                 x: b.x + h, y: b.y + h, width: b.width - 2 * h, height: b.height - 2 * h)
            mark.opacity = alphas[j]
            items.append(.label(mark))
            if owners[j] >= 0 { sides[owners[j]] = side }
        }
        return Output(items: items, dropped: dropped, sides: sides)
    }
}
