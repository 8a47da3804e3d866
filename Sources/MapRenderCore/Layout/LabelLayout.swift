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

    static func place(field: String, drawn: [Int], batch: MarkerBatch, data: ProjectedPoints, style: Style,
                      viewport v: Viewport, obstacles: [Rect], options: LayoutOptions,
                      measurer: TextMeasuring) -> Output {
        guard let col = data.points.properties.columnIndex(field) else { return Output(items: [], dropped: 0) }
        let priorityCol = options.labelPriority.flatMap { data.points.properties.columnIndex($0) }
        let ls = style.label
        let font = FontSpec(family: ls.font, size: ls.size * options.textScale, weight: ls.weight)
        let callout = options.labelStyle == .callout
        let maxWidth = ls.calloutMaxWidth * options.textScale
        var index = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
        index.insert(contentsOf: obstacles)

        // Candidates in marker draw order; texts measured once per distinct string (the measurer caches).
        var texts: [String] = [], labels: [LabelPlacer.Label] = [], anchors: [(x: Double, y: Double, pin: Rect)] = []
        for (k, i) in drawn.enumerated() {
            guard let text = data.points.properties.value(column: col, row: i).displayText, !text.isEmpty else { continue }
            let sym = batch.symbols[Int(batch.symbol[k])]
            let e = sym.extent
            let markBox = Rect(x: batch.x[k] - e.left, y: batch.y[k] - e.top, width: e.left + e.right, height: e.top + e.bottom)
            let anchorBox: Rect
            if sym.shape == .pin {
                let r = sym.pinHeadRadius
                anchorBox = Rect(x: batch.x[k] - r, y: batch.y[k] - sym.size, width: 2 * r, height: 2 * r)
            } else {
                anchorBox = markBox
            }
            let priority = priorityCol.flatMap { data.points.properties.value(column: $0, row: i).numberValue } ?? 0
            if callout {
                let size = measurer.measure(text, font: font, maxWidth: maxWidth)
                labels.append(.init(markBox: markBox, anchorBox: anchorBox, size: size, priority: priority))
                anchors.append((batch.x[k], markBox.y, markBox))
            } else {
                // The halo reaches beyond the text: reserve it so halos do not overlap either.
                var size = measurer.measure(text, font: font)
                size.width += 2 * ls.haloWidth
                size.height += 2 * ls.haloWidth
                labels.append(.init(markBox: markBox, anchorBox: anchorBox, size: size, priority: priority))
            }
            texts.append(text)
        }
        var items: [SceneItem] = []
        var dropped = 0
        if callout {
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
        var opts = LabelPlacer.Options()
        opts.gap = ls.offset
        opts.allowOverlap = options.allowOverlap
        let result = LabelPlacer.place(labels, in: &index, options: opts)
        for j in result.order {
            guard let p = result.placements[j] else { continue }
            let h = ls.haloWidth
            items.append(.label(LabelMark(text: texts[j], font: font, color: ls.color, halo: ls.halo, haloWidth: h,
                                          x: p.box.x + h, y: p.box.y + h,
                                          width: p.box.width - 2 * h, height: p.box.height - 2 * h)))
        }
        return Output(items: items, dropped: result.droppedCount)
    }
}
