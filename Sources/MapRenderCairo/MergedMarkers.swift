import CCairo
import Foundation
import MapRenderCore

/// SVG markers of a dense batch written as a few long paths instead of a `<use>` per marker.
///
/// Why: Cairo's SVG writer references a symbol's recording once per marker (`<use>`), and
/// librsvg refuses documents whose `<use>` elements reach more than 500,000 elements in all
/// (`rsvg-convert`: "exceeded more than 500000 referenced elements"): a 170k-city dot map has
/// 343k `<use>` (outline pass and fill pass), each reaching the path(s) of its symbol.
/// Merged, the same map is two paint operations (all outlines, then all fills), cut into
/// paths of `chunk` markers each (libxml2 refuses one attribute longer than 10 MB without
/// `XML_PARSE_HUGE`, and viewers handle many moderate paths better than one huge one).
///
/// Threshold: a batch is merged when one of its symbols has more than `threshold` (10,000)
/// markers. Below that the `<use>` form is small (10k `<use>` reach at most 40k elements
/// with a three-layer pin, far below librsvg's limit even with several such batches) and keeps
/// the simple one-reference-per-marker structure; above it, a few such batches would break the
/// limit. The price: Cairo writes each circle as four Bézier curves, so the file is larger
/// (the 170k-city dot map: 54 MB merged, against about 30 MB of `<use>`).
///
/// The picture is the one drawn marker by marker, north to south (`MarkerBatch` order, the
/// outline pass of `outlinesFirst` symbols before every marker): each mark gets a *level*, one
/// above the highest level of the marks painted before it that it touches, and the marks of one
/// symbol, pass and level form a group whose layers are painted as merged paths; groups are
/// painted level by level. A mark is drawn after every earlier mark it touches, which is all the
/// order a picture can show. A mark may share the level of a mark it touches only when both are
/// one symbol's pass that is one opaque paint: overlapping translucent marks must darken each
/// other, and a southern mark's fill must cover a northern mark's rim, which a merged "fill
/// all, then stroke all" would not do.
/// One opaque paint (the fill pass and outline pass of `outlinesFirst` dots, a stroke-less opaque
/// circle) may merge overlapping marks: the union of same-coloured opaque shapes is the same
/// picture in any order. "Touches" is tested on grid cells as large as the largest symbol
/// (boxes grown by a pixel for anti-aliasing), so it errs towards more groups, never fewer.
enum MergedMarkers {
    static let threshold = 10_000
    /// Markers per path element.
    static let chunk = 1_000
    /// The most groups of translucent symbols (`opacity` below 1) merged: each is a group
    /// composited with that opacity, which librsvg renders as an offscreen image of its own (a
    /// 170k translucent pin map needed 48k of them, and rsvg-convert was still at it after
    /// minutes; capping the levels at 64 instead gave an SVG librsvg read as cut short, cause not
    /// found, and lost the stacking order where the cap bit). A batch
    /// needing more is drawn marker by marker (`<use>`), as before: merging overlapping
    /// translucent marks would lose how they darken each other.
    static let translucentGroups = 256

    static func applies(to m: MarkerBatch) -> Bool {
        // Texts inside markers are drawn with their markers (a recording each), never merged.
        guard m.count > threshold, !m.symbols.contains(where: { $0.text != nil || $0.icon != nil }) else { return false }
        var counts = [Int](repeating: 0, count: m.symbols.count)
        for s in m.symbol { counts[Int(s)] += 1 }
        return counts.contains { $0 > threshold }
    }

    struct Group: Equatable {
        var symbol: Int
        var part: MarkerGeometry.Part
        /// Marker indices, in batch order.
        var members: [Int]
    }

    /// Whether overlapping markers of this symbol's part may share one merged paint.
    static func selfMergeable(_ s: MarkerSymbol, part: MarkerGeometry.Part) -> Bool {
        guard s.opacity >= 1 else { return false }
        var paints: [RGBA] = []
        for layer in MarkerGeometry.layers(for: s, part: part) {
            if layer.fill.a > 0 { paints.append(layer.fill) }
            if layer.strokeWidth > 0 && layer.stroke.a > 0 { paints.append(layer.stroke) }
        }
        return paints.count <= 1 && paints.allSatisfy { $0.a >= 1 }
    }

    /// The groups in painting order (see the type's documentation).
    static func groups(for m: MarkerBatch) -> [Group] {
        var cell = 1.0
        for s in m.symbols {
            let e = s.extent
            cell = max(cell, e.left + e.right + 2, e.top + e.bottom + 2)
        }
        let mergeable = m.symbols.map { s -> (whole: Bool, outline: Bool, fill: Bool) in
            (selfMergeable(s, part: .whole), selfMergeable(s, part: .outline), selfMergeable(s, part: .fill))
        }
        // Each marker gets a level: above every level it touches, or on it when that cell's
        // marks at that level are its own symbol and pass and that is one opaque paint. Groups
        // are (level, symbol and pass), painted level by level; marks of one level that touch
        // share a group, so the groups of a level may be painted in any order.
        var groups: [Group] = []
        var levels: [Int32] = []
        var groupAt: [Int64: Int] = [:]          // level × 3 × symbols + key → group
        var cells: [Int64: (level: Int32, key: Int32)] = [:]
        cells.reserveCapacity(m.count)
        let keys = Int64(3 * max(1, m.symbols.count))
        func place(_ k: Int, _ part: MarkerGeometry.Part) {
            let s = Int(m.symbol[k])
            let p = part == .whole ? 0 : (part == .outline ? 1 : 2)
            let key = Int32(s * 3 + p)
            let own = p == 0 ? mergeable[s].whole : (p == 1 ? mergeable[s].outline : mergeable[s].fill)
            let b = m.box(at: k)
            // Far outside any image: clamp (the cells only decide grouping, never drawing).
            func c(_ v: Double) -> Int64 { Int64(max(-1e12, min(1e12, (v / cell).rounded(.down)))) }
            let x0 = c(b.x - 1), x1 = c(b.x + b.width + 1), y0 = c(b.y - 1), y1 = c(b.y + b.height + 1)
            func id(_ x: Int64, _ y: Int64) -> Int64 { (y &* 0x1_0000_0007) &+ x }
            var level: Int32 = 0
            for y in y0...y1 {
                for x in x0...x1 {
                    if let t = cells[id(x, y)] { level = max(level, own && t.key == key ? t.level : t.level + 1) }
                }
            }
            let slot = Int64(level) * keys + Int64(key)
            let g = groupAt[slot] ?? {
                groups.append(Group(symbol: s, part: part, members: []))
                levels.append(level)
                groupAt[slot] = groups.count - 1
                return groups.count - 1
            }()
            groups[g].members.append(k)
            // Never lower a cell (a clamped translucent mark may lie below what it touches).
            for y in y0...y1 {
                for x in x0...x1 {
                    let i = id(x, y)
                    if let t = cells[i], t.level >= level {
                        if t.level == level && t.key != key { cells[i] = (level, -1) }
                    } else {
                        cells[i] = (level, key)
                    }
                }
            }
        }
        if m.symbols.contains(where: \.outlinesFirst) {
            for k in 0..<m.count where m.symbols[Int(m.symbol[k])].outlinesFirst { place(k, .outline) }
        }
        for k in 0..<m.count { place(k, m.symbols[Int(m.symbol[k])].outlinesFirst ? .fill : .whole) }
        // Level by level; within a level, in order of creation (deterministic).
        return groups.indices.sorted { (levels[$0], $0) < (levels[$1], $1) }.map { groups[$0] }
    }

    /// Paints the batch as merged paths, group after group; false (nothing drawn) when it would
    /// take more than `translucentGroups` translucent groups.
    @discardableResult
    static func draw(_ m: MarkerBatch, on cr: OpaquePointer) -> Bool {
        let groups = groups(for: m)
        guard groups.count(where: { m.symbols[$0.symbol].opacity < 1 }) <= translucentGroups else { return false }
        cairo_save(cr)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        for g in groups {
            let s = m.symbols[g.symbol]
            let grouped = s.opacity < 1
            if grouped { cairo_push_group(cr) }
            for layer in MarkerGeometry.layers(for: s, part: g.part) {
                // Every fill of the group, then every stroke: its members do not touch unless
                // the layer is its symbol's one opaque paint.
                for stroke in [false, true] {
                    let colour = stroke ? layer.stroke : layer.fill
                    guard colour.a > 0, !stroke || layer.strokeWidth > 0 else { continue }
                    for from in stride(from: 0, to: g.members.count, by: chunk) {
                        cairo_new_path(cr)
                        for k in g.members[from..<min(from + chunk, g.members.count)] {
                            cairo_new_sub_path(cr)
                            MarkerPainter.appendPath(layer.path, to: cr, x: m.x[k], y: m.y[k])
                        }
                        colour.setSource(cr)
                        if stroke {
                            cairo_set_line_width(cr, layer.strokeWidth)
                            cairo_stroke(cr)
                        } else {
                            cairo_fill(cr)
                        }
                    }
                }
            }
            if grouped {
                cairo_pop_group_to_source(cr)
                cairo_paint_with_alpha(cr, s.opacity)
            }
        }
        cairo_new_path(cr)
        cairo_restore(cr)
        return true
    }
}
