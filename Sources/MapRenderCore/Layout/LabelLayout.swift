import Foundation

/// Places one label (or callout) per drawn marker without overlaps, in priority order.
///
/// Every marker, bubble, spread leg and the attribution are obstacles; each label takes the first
/// free position around its marker (right, left, above, below, then the diagonals), or is dropped.
enum LabelLayout {
    struct Output {
        var items: [SceneItem]
        var dropped: Int
    }

    static func place(field: String, drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble] = [],
                      data: ProjectedPoints, style: Style,
                      viewport v: Viewport, obstacles: [Rect], options: LayoutOptions,
                      measurer: TextMeasuring) -> Output {
        guard let col = data.points.properties.columnIndex(field) else { return Output(items: [], dropped: 0) }
        let priorityCol = options.labelPriority.flatMap { data.points.properties.columnIndex($0) }
        let ls = style.label
        let font = FontSpec(family: ls.font, size: ls.size * options.textScale, weight: ls.weight)
        let callout = options.labelStyle == .callout
        let maxWidth = ls.calloutMaxWidth * options.textScale

        // Candidates in marker draw order. Plain labels are measured lazily (below): most labels of a
        // dense map are blocked anyway, and shaping text is the expensive part of layout.
        var texts: [String] = [], labels: [LabelPlacer.Label] = [], anchors: [(x: Double, y: Double, pin: Rect)] = []
        // Cluster labels first: a bubble named after its most important point (with ranked labels)
        // is placed before every point label.
        if !callout {
            for b in bubbles {
                guard let rep = b.representative,
                      let text = data.points.properties.value(column: col, row: rep).displayText.map(LabelText.truncated), !text.isEmpty else { continue }
                let r = style.cluster.step(for: b.count).radius
                let box = Rect(x: b.x - r, y: b.y - r, width: 2 * r, height: 2 * r)
                let value = priorityCol.flatMap { data.points.properties.value(column: $0, row: rep).numberValue } ?? 0
                labels.append(.init(markBox: box, anchorBox: box, size: TextSize(width: 0, height: 0), priority: value))
                texts.append(text)
            }
        }
        let bubbleLabels = labels.count
        for (k, i) in drawn.enumerated() {
            guard let text = data.points.properties.value(column: col, row: i).displayText.map(LabelText.truncated), !text.isEmpty else { continue }
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
        var placedLabels = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
        func free(_ r: Rect) -> Bool { raster.isFree(r) && placedLabels.canPlace(r) }
        for j in order {
            var label = labels[j]
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
            let box: Rect?
            if options.allowOverlap {
                box = LabelPlacer.box(.right, for: label, gap: gap)
            } else {
                box = LabelPlacer.Position.allCases.lazy.map { LabelPlacer.box($0, for: label, gap: gap) }
                    .first(where: free)
            }
            guard let b = box else {
                dropped += 1
                continue
            }
            placedLabels.insert(b)
            items.append(.label(LabelMark(text: texts[j], font: font, color: ls.color, halo: ls.halo, haloWidth: h,
                                          x: b.x + h, y: b.y + h, width: b.width - 2 * h, height: b.height - 2 * h)))
        }
        return Output(items: items, dropped: dropped)
    }
}
