import Foundation

/// One layer of a map. A map is an ordered list of them sharing one view, one collision index
/// (labels avoid the marks of every layer) and one scene, drawn in list order.
public enum MapLayer: Sendable {
    /// Raster tiles, stretched over their rectangles.
    case raster([RasterMark])
    /// A style's fill or line layer over one source's lines and polygons (the basemap's, the data's).
    case shapes(StyleLayer, ShapeSet)
    /// The points as the plan places them: spread legs, markers north to south, bubbles above.
    case points
    /// Labels or callouts of points and bubbles, placed around every mark drawn.
    case labels
    /// Lines and polygons of the data named by a property: along the lines, at the polygons'
    /// poles. Placed and drawn with the `labels` layer, in one priority order with the points'.
    case shapeLabels(ShapeLabels)
    /// Scale bar, legend and attribution.
    case decorations
    /// A basemap style's point labels (`BasemapSymbols`): drawn here in the layer order, but
    /// placed after the data's labels, in the space they and every mark leave free.
    case symbols(BasemapSymbols)

    /// The layers of a map in their usual order: raster tiles, then the style's shape layers
    /// (`Style.shapeLayers`: the basemap's fills and lines, then the data's polygons and lines,
    /// unless the style orders them otherwise), points, labels and decorations.
    public static func standard(style: Style, rasters: [RasterMark] = [], basemaps: [ShapeSet],
                                shapes: ShapeSet = ShapeSet(), shapeLabels: [ShapeLabels] = []) -> [MapLayer] {
        var out: [MapLayer] = rasters.isEmpty ? [] : [.raster(rasters)]
        for layer in style.shapeLayers {
            switch layer.source {
            case .basemap: out += basemaps.map { .shapes(layer, $0) }
            case .data: if !shapes.isEmpty { out.append(.shapes(layer, shapes)) }
            }
        }
        return out + [.points] + shapeLabels.map { .shapeLabels($0) } + [.labels, .decorations]
    }
}

/// Turns projected data and its mark plan into a `Scene`, layer by layer (`MapLayer`).
public enum MapLayout {
    public static func scene(viewport v: Viewport, scale: Double, style: Style,
                             data: ProjectedPoints, plan given: MarkPlan? = nil, basemaps: [ShapeSet],
                             options: LayoutOptions, measurer: TextMeasuring) -> Scene {
        layout(viewport: v, scale: scale, style: style, data: data, plan: given,
               layers: MapLayer.standard(style: style, basemaps: basemaps),
               options: options, measurer: measurer).scene
    }

    public static func scene(viewport v: Viewport, scale: Double, style: Style,
                             data: ProjectedPoints, plan given: MarkPlan? = nil, layers: [MapLayer],
                             options: LayoutOptions, measurer: TextMeasuring) -> Scene {
        layout(viewport: v, scale: scale, style: style, data: data, plan: given, layers: layers,
               options: options, measurer: measurer).scene
    }

    /// `layout(...layers:...)` with the standard layers over `basemaps`.
    public static func layout(viewport v: Viewport, scale: Double, style: Style,
                              data: ProjectedPoints, plan given: MarkPlan? = nil, basemaps: [ShapeSet],
                              options: LayoutOptions, measurer: TextMeasuring) -> (scene: Scene, labelSides: LabelSides) {
        layout(viewport: v, scale: scale, style: style, data: data, plan: given,
               layers: MapLayer.standard(style: style, basemaps: basemaps), options: options, measurer: measurer)
    }

    /// The scene, and the side each label or callout took (an animation hands these to the next
    /// frame as `MarkPlan.labelHints`).
    public static func layout(viewport v: Viewport, scale: Double, style: Style,
                              data: ProjectedPoints, plan given: MarkPlan? = nil, layers: [MapLayer],
                              options: LayoutOptions, measurer: TextMeasuring) -> (scene: Scene, labelSides: LabelSides) {
        var plan = given ?? MarkPlanner.plan(viewport: v, data: data, clusters: nil, leaves: { _ in nil },
                                             spread: SpreadOptions(), bubbles: style.cluster)
        BubbleSpacing.apply(to: &plan, style: style.cluster)  // bubbles never hide each other's counts
        var scene = Scene(width: v.width, height: v.height, scale: scale, background: style.background)
        var sides = LabelSides()
        scene.world = WorldFrame.rect(viewport: v)
        scene.letterbox = style.letterbox

        // Marks every later layer must know of, made first: the points' markers (labels avoid
        // them), the decorations' boxes (labels avoid them too) and the basemap's land (labels
        // on dense dot maps keep off coasts).
        var (batch, drawn) = markers(viewport: v, data: data, plan: plan)
        if options.markerSymbols, let w = MarkerTextLayout.apply(&batch, drawn: drawn, points: data.points, family: style.cluster.font,
                                                                  textScale: options.textScale, measurer: measurer) {
            scene.warnings.append(w)
        }
        if let w = scene.world { WorldFrame.keepInside(&batch, world: w) }
        if options.keepsMarkerPoints { scene.markerPoints = drawn }
        var attributionMark: TextBoxMark?
        if let text = options.attribution, !text.isEmpty {
            attributionMark = attribution(text, viewport: v, style: style.attribution,
                                          textScale: options.textScale, measurer: measurer)
        }
        var decorations: [SceneItem] = []
        var decorationBoxes: [Rect] = []
        if layers.contains(where: { if case .decorations = $0 { return true } else { return false } }) {
            let scaleVariation = Decorations.scaleVariation(viewport: v)
            if options.scaleBar && scaleVariation > Decorations.maxScaleVariation {
                scene.warnings.append(Decorations.scaleBarOmitted(viewport: v, variation: scaleVariation))
            } else if options.scaleBar {
                let bar = Decorations.scaleBar(viewport: v, style: style.attribution, textScale: options.textScale, measurer: measurer,
                                               statingLatitude: scaleVariation > Decorations.plainScaleVariation)
                decorations.append(.scaleBar(bar)); decorationBoxes.append(bar.box)
            }
            if options.legend, let legend = Decorations.legend(style: style, title: style.legendExpression?.categoryProperty,
                                                              viewport: v, textScale: options.textScale, measurer: measurer) {
                decorations.append(.legend(legend)); decorationBoxes.append(legend.box)
            }
            if let a = attributionMark { decorations.append(.textBox(a)) }
        } else {
            attributionMark = nil
        }
        var land: [ShapeBatch] = [], water: [ShapeBatch] = []
        // Basemap symbol layers: where their labels go in the scene, placed once the rest is.
        var symbolSlots: [(at: Int, symbols: BasemapSymbols)] = []

        let shapeLabels = layers.compactMap { if case .shapeLabels(let s) = $0 { return s } else { return nil } }
        for layer in layers {
            switch layer {
            case .shapeLabels:
                continue   // with the points' labels
            case .symbols(let s):
                symbolSlots.append((scene.items.count, s))
            case .raster(let marks):
                scene.items += marks.map { .raster($0) }
            case .shapes(let styleLayer, let shapes):
                for b in ShapeLayout.batches(for: shapes, layer: styleLayer, viewport: v) {
                    scene.items.append(.shapes(b))
                    if styleLayer.source == .basemap && !styleLayer.fromBasemapStyle && b.kind == .polygon && styleLayer.type == .fill {
                        // A basemap polygon in the map's water colour (a lake) is water over the land.
                        if b.fill == style.background { water.append(b) } else { land.append(b) }
                    }
                }
            case .points:
                if !plan.spreadGroups.isEmpty { scene.items.append(.legs(legs(plan: plan, data: data, style: style.spread))) }
                if batch.count > 0 { scene.items.append(.markers(batch)) }
                // Bubbles above every marker: no marker ever covers a count.
                if !plan.bubbles.isEmpty {
                    var b = bubbles(plan: plan, viewport: v, style: style.cluster, textScale: options.textScale, measurer: measurer)
                    if let w = scene.world { WorldFrame.keepInside(&b, world: w) }
                    BubbleTextFit.keepOnImage(&b, width: v.width, height: v.height, measurer: measurer)
                    scene.items += opaqueWhereCovering(b, markers: batch, viewport: v).map { .bubbles($0) }
                }
            case .labels:
                guard let field = options.labelField else { continue }
                // Small dots are soft obstacles (labels may cover a few); pins and larger marks are hard.
                let small = batch.symbols.map(LabelLayout.isSoft)
                let hardMarks = (0..<batch.count).filter { !small[Int(batch.symbol[$0])] }
                let softMarks = (0..<batch.count).filter { small[Int(batch.symbol[$0])] }
                let soft = softMarks.isEmpty ? nil : MarkerDensity(width: v.width, height: v.height,
                                                                   x: softMarks.map { batch.x[$0] }, y: softMarks.map { batch.y[$0] })
                var obstacles = hardMarks.map(batch.box(at:)) + decorationBoxes
                // Bubbles are obstacles too: round ones for plain labels, squares for callouts (LabelLayout).
                obstacles += legBoxes(plan)
                if let a = attributionMark { obstacles.append(a.box) }
                let placed = LabelLayout.place(field: field, drawn: drawn, batch: batch, bubbles: plan.bubbles, data: data,
                                               style: style, viewport: v, obstacles: obstacles, options: options,
                                               measurer: measurer, hints: plan.labelHints, opacity: plan.labelOpacity,
                                               bubbleOpacity: plan.bubbleLabelOpacity,
                                               soft: soft, skip: sharedLabelRepeats(plan: plan, data: data, field: field),
                                               land: LandMask(polygons: land, water: water, width: v.width, height: v.height),
                                               shapes: shapeLabels)
                scene.items += placed.items
                scene.labelsDropped = placed.dropped
                sides = placed.sides
            case .decorations:
                scene.items += decorations
            }
        }
        if !symbolSlots.isEmpty {
            placeBasemapSymbols(symbolSlots, scene: &scene, batch: batch, viewport: v, textScale: options.textScale,
                                allowOverlap: options.allowOverlap, measurer: measurer)
        }
        return (scene, sides)
    }

    /// Places the basemap's labels in the space left by every mark and label already in the
    /// scene (the data's labels first: they are the map's subject), through one collision index:
    /// the style's top symbol layer first, by `symbol-sort-key` (lower first) within a layer, then
    /// feature order. Each placed label is inserted at its layer's place in the drawing order.
    static func placeBasemapSymbols(_ slots: [(at: Int, symbols: BasemapSymbols)], scene: inout Scene, batch: MarkerBatch,
                                    viewport v: Viewport, textScale: Double, allowOverlap: Bool, measurer: TextMeasuring) {
        var index = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
        for item in scene.items {
            switch item {
            case .label(let l):
                index.insert(l.box)
                if let line = l.leader { for b in LeaderLabel.boxes(along: line) { index.insert(b) } }
            case .pathLabel(let l): for b in l.boxes { index.insert(b) }
            case .callout(let c): index.insert(c.box)
            case .textBox(let t): index.insert(t.box)
            case .scaleBar(let b): index.insert(b.box)
            case .legend(let l): index.insert(l.box)
            case .bubbles(let b): for x in b.bubbles { index.insert(x.box) }
            default: break
            }
        }
        for k in 0..<batch.count { index.insert(batch.box(at: k)) }
        var candidates: [(slot: Int, c: SymbolCandidate)] = []
        for (k, slot) in slots.enumerated() {
            candidates += slot.symbols.candidates(viewport: v, textScale: textScale, measurer: measurer).map { (k, $0) }
        }
        candidates.sort {
            if $0.c.layerOrder != $1.c.layerOrder { return $0.c.layerOrder > $1.c.layerOrder }
            if $0.c.sortKey != $1.c.sortKey { return $0.c.sortKey < $1.c.sortKey }
            return $0.c.index < $1.c.index
        }
        var placed = [[SceneItem]](repeating: [], count: slots.count)
        // A layer's icons are drawn under its labels, as MapLibre draws them.
        var icons = [[SceneItem]](repeating: [], count: slots.count)
        let frame = Rect(x: 0, y: 0, width: v.width, height: v.height)
        for (slot, c) in candidates {
            if let along = c.along, let l = c.label {
                // Along a line: each repetition on its own, every glyph on the image and free (and
                // its icon, when the layer has one: both, or the one that is optional).
                let style = slots[slot].symbols.symbol
                for (k, p) in along.enumerated() {
                    var showText = allowOverlap || p.boxes.allSatisfy({ frame.contains($0) && index.canPlace($0) })
                    if let icon = c.alongIcons?[k] {
                        var showIcon = style.iconAllowOverlap || allowOverlap || index.canPlace(icon.box)
                        if !(showText && showIcon) {
                            if showIcon && style.textOptional { showText = false }
                            else if showText && style.iconOptional { showIcon = false }
                            else { showText = false; showIcon = false }
                        }
                        if showIcon {
                            index.insert(icon.box)
                            var mark = RasterMark(image: icon.image.image, rect: icon.rect)
                            mark.opacity = icon.opacity
                            mark.angle = icon.angle
                            icons[slot].append(.raster(mark))
                        }
                    }
                    guard showText else { continue }
                    for b in p.boxes { index.insert(b) }
                    var mark = PathLabelMark(text: l.text, font: l.font, color: l.color, halo: l.halo, haloWidth: l.haloWidth,
                                             glyphs: p.glyphs, boxes: p.boxes)
                    mark.opacity = l.opacity
                    mark.haloBlur = l.haloBlur
                    placed[slot].append(.pathLabel(mark))
                }
                continue
            }
            // The whole label on the image, as MapLibre keeps labels inside a static map's edges;
            // an icon may reach past the edge, as MapLibre's.
            let style = slots[slot].symbols.symbol
            let textFits = c.label.map { frame.contains($0.box) && (allowOverlap || index.canPlace($0.box)) } ?? false
            let iconFits = c.icon.map { style.iconAllowOverlap || allowOverlap || index.canPlace($0.box) } ?? false
            // Both, or the one that is optional left out (`text-optional`, `icon-optional`).
            var showText = c.label != nil && textFits, showIcon = c.icon != nil && iconFits
            if c.label != nil && c.icon != nil {
                if !(showText && showIcon) {
                    if showIcon && style.textOptional { showText = false }
                    else if showText && style.iconOptional { showIcon = false }
                    else { showText = false; showIcon = false }
                }
            }
            if showIcon, let i = c.icon {
                index.insert(i.box)
                var mark = RasterMark(image: i.image.image, rect: i.rect)
                mark.opacity = i.opacity
                mark.angle = i.angle
                icons[slot].append(.raster(mark))
            }
            if showText, let l = c.label {
                index.insert(l.box)
                placed[slot].append(.label(l))
            }
        }
        // Inserted from the last slot back, so earlier positions stay valid.
        for k in slots.indices.reversed() where !placed[k].isEmpty || !icons[k].isEmpty {
            scene.items.insert(contentsOf: icons[k] + placed[k], at: slots[k].at)
        }
    }

    /// Visible markers in draw order (north to south, so lower pins overlap upper ones; plan order
    /// within a quarter-pixel row). Returns the batch and, per batch entry, the point index.
    /// - Complexity: O(n + rows): a counting sort on the quantised y, no comparison sort.
    public static func markers(viewport v: Viewport, data: ProjectedPoints, plan: MarkPlan) -> (MarkerBatch, [Int]) {
        let n = plan.markerPoint.count
        let ext = data.styles.extent
        let rowsPerPixel = 4.0
        let rowCount = Int((v.height + ext.top + ext.bottom) * rowsPerPixel) + 2
        var bucket = [Int32](repeating: -1, count: n)
        var counts = [Int](repeating: 0, count: rowCount + 1)
        for k in 0..<n {
            let x = plan.markerX[k], y = plan.markerY[k]
            // Cull by the largest symbol's extent: the box x - left ... x + right, y - top ... y + bottom
            // (a pin reaches up from its point: one just below the image shows its head, one just
            // above shows nothing).
            guard x + ext.right >= 0, x - ext.left <= v.width, y + ext.bottom >= 0, y - ext.top <= v.height else { continue }
            let row = min(max(Int((y + ext.bottom) * rowsPerPixel), 0), rowCount - 1)
            bucket[k] = Int32(row)
            counts[row + 1] += 1
        }
        for r in 0..<rowCount { counts[r + 1] += counts[r] }
        let total = counts[rowCount]
        var batch = MarkerBatch()
        batch.symbols = data.styles.symbols
        // Each marker written straight to its place in row order (markers in their order within
        // a row): the markers are read front to back and written to one run per row. Reading them
        // in row order instead (a gather through a permutation) missed the cache four times per
        // marker, and cost 2.7x per doubling from 1M to 2M markers.
        var xs = [Double](repeating: 0, count: total), ys = [Double](repeating: 0, count: total)
        var symbols = [UInt16](repeating: 0, count: total)
        var drawn = [Int](repeating: 0, count: total)
        xs.withUnsafeMutableBufferPointer { xs in
            ys.withUnsafeMutableBufferPointer { ys in
                symbols.withUnsafeMutableBufferPointer { symbols in
                    drawn.withUnsafeMutableBufferPointer { drawn in
                        for k in 0..<n where bucket[k] >= 0 {
                            let r = Int(bucket[k]), to = counts[r]
                            counts[r] = to + 1
                            let i = plan.markerPoint[k]
                            xs[to] = plan.markerX[k]
                            ys[to] = plan.markerY[k]
                            symbols[to] = data.styles.index[i]
                            drawn[to] = i
                        }
                    }
                }
            }
        }
        batch.x = xs
        batch.y = ys
        batch.symbol = symbols
        return (batch, drawn)
    }

    /// The legs of the spread groups and the dot at each true position. The dot's radius is the
    /// style's `dot-radius`, but at most half the radius of the group's largest marker (a pin's
    /// head, half a circle's or square's width): beside two 3 px dots a 5 px dark dot read as a
    /// third, darker point. The largest, not the smallest: a member growing in (an animation's
    /// scale) does not shrink the dot of its group. Order: per group in plan order, a leg per
    /// member and one dot (the animated SVG reads them so).
    static func legs(plan: MarkPlan, data: ProjectedPoints, style: Style.Spread) -> LegBatch {
        var legs = LegBatch(color: style.legColor, width: style.legWidth, dotRadius: style.dotRadius, dotColor: style.dotColor)
        for g in plan.spreadGroups {
            for k in g.firstMarker..<(g.firstMarker + g.members.count) {
                legs.x0.append(g.x); legs.y0.append(g.y)
                legs.x1.append(plan.markerX[k]); legs.y1.append(plan.markerY[k])
            }
            var largest = 0.0
            for i in g.members {
                let s = data.styles.symbols[Int(data.styles.index[i])]
                largest = max(largest, s.shape == .pin ? s.pinHeadRadius : s.size / 2)
            }
            legs.dotX.append(g.x); legs.dotY.append(g.y)
            legs.dotR.append(max(0, min(style.dotRadius, largest / 2)))
        }
        return legs
    }

    static func bubbles(plan: MarkPlan, viewport v: Viewport, style: Style.Cluster, textScale: Double,
                        measurer: TextMeasuring) -> BubbleBatch {
        let font = FontSpec(family: style.font, size: style.textSize * textScale, weight: .bold)
        var batch = BubbleBatch(stroke: style.stroke, strokeWidth: style.strokeWidth, opacity: style.opacity,
                                font: font, textColor: style.textColor)
        // Larger bubbles first, so small ones stay visible on top; ties north to south. Bubbles
        // without their count, and an animation's growing or vanishing ones (a bubble shrinking
        // into the one that took its points passes under it), go under all others.
        let moving = plan.bubbles.map { !$0.showsText || BubbleTextFit.inTransition($0, style: style) }
        let order = plan.bubbles.indices.sorted {
            let a = plan.bubbles[$0], b = plan.bubbles[$1]
            if moving[$0] != moving[$1] { return moving[$0] }
            return a.count != b.count ? a.count > b.count : (a.y != b.y ? a.y < b.y : $0 < $1)
        }
        for i in order {
            let b = plan.bubbles[i]
            let r = b.radius
            guard r > 0, b.x + r >= 0, b.x - r <= v.width, b.y + r >= 0, b.y - r <= v.height else { continue }
            let fill = style.step(for: b.count).fill
            // Its text as BubbleTextFit sets it (an aggregate shrunk to fit, a growing one's hidden).
            let fit = BubbleTextFit.fit(b, style: style, font: font, measurer: measurer)
            let size = fit.size
            batch.bubbles.append(.init(x: b.x, y: b.y, radius: fit.radius, fill: fill, count: b.count, text: fit.text,
                                       textBox: Rect(x: b.x - size.width / 2, y: b.y - size.height / 2,
                                                     width: size.width, height: size.height), textSize: fit.textSize,
                                       planIndex: i))
        }
        return batch
    }

    /// The bubbles in runs of their drawing order, each run one batch: a bubble whose square
    /// touches a drawn marker or a bubble drawn before it is drawn opaque (the style's `opacity`
    /// is for the basemap showing through; a pin or a larger bubble's rim under a translucent
    /// bubble reads as a ghost: issue 47), the others as styled. One batch when no bubble covers
    /// anything (or the style's bubbles are opaque already).
    /// - Complexity: O(markers + image pixels) for the coverage raster, and per bubble one
    ///   question and one insert in a `CollisionIndex` of the bubbles before it.
    static func opaqueWhereCovering(_ batch: BubbleBatch, markers: MarkerBatch, viewport v: Viewport) -> [BubbleBatch] {
        guard batch.opacity < 1, !batch.bubbles.isEmpty else { return [batch] }
        var covered = ObstacleRaster(width: v.width, height: v.height)
        for k in 0..<markers.count { covered.add(markers.box(at: k)) }
        covered.finish()
        var below = CollisionIndex(width: v.width, height: v.height, bounds: nil)
        var runs: [BubbleBatch] = []
        for b in batch.bubbles {
            let r = b.radius + batch.strokeWidth / 2
            let square = Rect(x: b.x - r, y: b.y - r, width: 2 * r, height: 2 * r)
            let opaque = (markers.count > 0 && !covered.isFree(square)) || !below.canPlace(square)
            below.insert(square)
            let opacity = opaque ? 1 : batch.opacity
            if runs.last?.opacity != opacity {
                var run = batch
                run.bubbles = []
                run.opacity = opacity
                runs.append(run)
            }
            runs[runs.count - 1].bubbles.append(b)
        }
        return runs
    }

    /// A spread group whose members all carry one label value is labelled once (by its outermost
    /// member): the other members' point indexes.
    static func sharedLabelRepeats(plan: MarkPlan, data: ProjectedPoints, field: String) -> Set<Int> {
        guard let col = data.points.properties.columnIndex(field) else { return [] }
        var skip = Set<Int>()
        for g in plan.spreadGroups where g.members.count > 1 {
            let first = data.points.properties.value(column: col, row: g.members[0]).displayText
            if g.members.allSatisfy({ data.points.properties.value(column: col, row: $0).displayText == first }) {
                skip.formUnion(g.members.dropLast())
            }
        }
        return skip
    }

    /// The pixel box of every drawn marker.
    static func markBoxes(_ batch: MarkerBatch) -> [Rect] {
        (0..<batch.count).map(batch.box(at:))
    }

    /// Small boxes along each spread leg, so labels do not cross the legs.
    static func legBoxes(_ plan: MarkPlan) -> [Rect] {
        var out: [Rect] = []
        for g in plan.spreadGroups {
            for k in g.firstMarker..<(g.firstMarker + g.members.count) {
                let dx = plan.markerX[k] - g.x, dy = plan.markerY[k] - g.y
                let steps = max(1, Int((dx * dx + dy * dy).squareRoot() / 6))
                for s in 0...steps {
                    let t = Double(s) / Double(steps)
                    out.append(Rect(x: g.x + dx * t - 1.5, y: g.y + dy * t - 1.5, width: 3, height: 3))
                }
            }
        }
        return out
    }

    static func attribution(_ text: String, viewport v: Viewport, style: Style.Attribution,
                            textScale: Double, measurer: TextMeasuring) -> TextBoxMark {
        let font = FontSpec(family: style.font, size: style.size * textScale, weight: .normal)
        let size = measurer.measure(text, font: font)
        let pad = 3.0
        let w = min(size.width + 2 * pad, v.width), h = size.height + 2 * pad
        return TextBoxMark(text: text, font: font, color: style.color, background: style.background,
                           box: Rect(x: v.width - w, y: v.height - h, width: w, height: h), padding: pad)
    }
}
