import CCairo
import Foundation
import Testing
import TestSupport
@testable import MapRenderCairo
@testable import MapRenderCore

/// Dense SVG marker batches are drawn as merged paths, group by group (`MergedMarkers`): the
/// picture must stay the one painted marker by marker, in batch order.
@Suite struct MergedMarkersTests {
    let symbols = [
        MarkerSymbol(shape: .pin, size: 28, fill: RGBA(0.84, 0.24, 0.16), stroke: .white, strokeWidth: 1.5, opacity: 1),
        MarkerSymbol(shape: .circle, size: 12, fill: RGBA(0.1, 0.4, 0.8), stroke: .white, strokeWidth: 1, opacity: 0.8),
        // Small dots: outlines first, then fills (two passes).
        MarkerSymbol(shape: .circle, size: 6, fill: RGBA(0.2, 0.7, 0.3), stroke: RGBA(0, 0, 0), strokeWidth: 1, opacity: 1),
        MarkerSymbol(shape: .square, size: 10, fill: RGBA(0.9, 0.8, 0.1, 0.6), stroke: RGBA(0.2, 0.2, 0.2), strokeWidth: 1, opacity: 1),
        MarkerSymbol(shape: .square, size: 7, fill: RGBA(0.5, 0.1, 0.6), stroke: .clear, strokeWidth: 0, opacity: 1),
    ]

    func batch(count: Int, seed: UInt64, symbols: [MarkerSymbol]) -> MarkerBatch {
        var rng = SeededRandom(seed: seed)
        var m = MarkerBatch()
        m.symbols = symbols
        for _ in 0..<count {
            let clump = Bool.random(using: &rng)
            m.x.append(clump ? 40 + Double.random(in: 0..<12, using: &rng) : Double.random(in: -20..<117, using: &rng))
            m.y.append(clump ? 30 + Double.random(in: 0..<12, using: &rng) : Double.random(in: -20..<81, using: &rng))
            m.symbol.append(UInt16.random(in: 0..<UInt16(symbols.count), using: &rng))
        }
        return m
    }

    /// The pixels of `draw` on a 97x61 image at scale 2.
    func pixels(_ draw: (OpaquePointer) -> Void) -> [UInt8] {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 194, 122)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        cairo_scale(cr, 2, 2)
        cairo_set_source_rgb(cr, 0.7, 0.8, 0.9)
        cairo_paint(cr)
        draw(cr)
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        return Array(UnsafeBufferPointer(start: data, count: Int(cairo_image_surface_get_stride(surface)) * 122))
    }

    /// Marker by marker, as the `<use>` form draws: the outline pass, then every marker.
    func oneByOne(_ m: MarkerBatch, _ cr: OpaquePointer) {
        for k in 0..<m.count where m.symbols[Int(m.symbol[k])].outlinesFirst {
            MarkerPainter.draw(m.symbols[Int(m.symbol[k])], on: cr, x: m.x[k], y: m.y[k], part: .outline)
        }
        for k in 0..<m.count {
            let s = m.symbols[Int(m.symbol[k])]
            MarkerPainter.draw(s, on: cr, x: m.x[k], y: m.y[k], part: s.outlinesFirst ? .fill : .whole)
        }
    }

    /// Merged, every symbol and mix of them gives the marker-by-marker picture up to anti-aliasing
    /// where edges meet (one path's coverage instead of two composited). Drawing the merged
    /// paints in the wrong order (every rim over every fill, translucent marks merged) differs in
    /// thousands of pixels.
    @Test(arguments: [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4]])
    func mergedPictureIsTheMarkerByMarkerPicture(symbolIndices: [Int]) {
        let syms = symbolIndices.map { symbols[$0] }
        for seed in 1...3 as ClosedRange<UInt64> {
            let m = batch(count: 400, seed: seed, symbols: syms)
            var drew = true
            let merged = pixels { cr in
                drew = MergedMarkers.draw(m, on: cr)
                if !drew { oneByOne(m, cr) }
            }
            // Only translucent marks too deep over each other are left marker by marker.
            #expect(drew || syms.contains { $0.opacity < 1 })
            let reference = pixels { oneByOne(m, $0) }
            var differing = 0
            for p in stride(from: 0, to: merged.count, by: 4) {
                let d = (0..<4).map { abs(Int(merged[p + $0]) - Int(reference[p + $0])) }.max()!
                if d > 40 { differing += 1 }
            }
            let share = Double(differing) / Double(merged.count / 4)
            #expect(share < 0.005, "symbols \(symbolIndices), seed \(seed): \(differing) pixels differ")
        }
    }

    /// A control: merging a translucent symbol's overlapping marks into one path would be wrong,
    /// and the comparison above sees it.
    @Test func theComparisonSeesAWrongOrder() {
        let m = batch(count: 400, seed: 1, symbols: [symbols[1]])
        let wrong = pixels { cr in
            cairo_push_group(cr)
            cairo_new_path(cr)
            for k in 0..<m.count {
                cairo_new_sub_path(cr)
                cairo_arc(cr, m.x[k], m.y[k], 6, 0, 2 * .pi)
            }
            RGBA(0.1, 0.4, 0.8).setSource(cr)
            cairo_fill(cr)
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, 0.8)
        }
        let reference = pixels { oneByOne(m, $0) }
        let differing = stride(from: 0, to: wrong.count, by: 4).filter { p in
            (0..<4).contains { abs(Int(wrong[p + $0]) - Int(reference[p + $0])) > 40 }
        }.count
        #expect(differing > 1000)
    }

    @Test func opaqueDotsBecomeTwoGroups() {
        var m = batch(count: 20_000, seed: 7, symbols: [symbols[2]])
        #expect(MergedMarkers.groups(for: m).map(\.part) == [.outline, .fill])
        m.symbols = [symbols[4]]
        #expect(MergedMarkers.groups(for: m).count == 1)
        #expect(MergedMarkers.applies(to: m))
        m.symbols = [symbols[2], symbols[4]]
        m.symbol = m.symbol.indices.map { UInt16($0 % 2) }
        // Two symbols over each other: more groups, yet every marker once in its order.
        let g = MergedMarkers.groups(for: m)
        #expect(g.count > 2)
        #expect(g.flatMap(\.members).count == m.count + m.count / 2)
    }

    /// A translucent batch needing more groups than `translucentGroups` is not merged.
    @Test func deepTranslucentStacksAreNotMerged() {
        var m = MarkerBatch()
        m.symbols = [symbols[1]]
        for k in 0..<300 { m.x.append(50 + Double(k) * 0.01); m.y.append(50); m.symbol.append(0) }
        #expect(MergedMarkers.groups(for: m).count == 300)
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 10, 10)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        #expect(!MergedMarkers.draw(m, on: cr))
        m.x.removeLast(100); m.y.removeLast(100); m.symbol.removeLast(100)
        #expect(MergedMarkers.draw(m, on: cr))
    }

    /// Translucent marks that overlap are never in one group; apart, they share one.
    @Test func translucentMarksThatTouchAreGroupedApart() {
        var m = MarkerBatch()
        m.symbols = [symbols[1]]
        for k in 0..<10 { m.x.append(Double(k) * 100); m.y.append(0); m.symbol.append(0) }
        #expect(MergedMarkers.groups(for: m).count == 1)
        m.x.append(5); m.y.append(5); m.symbol.append(0)
        let g = MergedMarkers.groups(for: m)
        #expect(g.count == 2 && g[1].members == [10])
    }

    @Test func smallBatchesKeepTheirUses() {
        let m = batch(count: MergedMarkers.threshold, seed: 3, symbols: [symbols[2]])
        #expect(!MergedMarkers.applies(to: m))
    }
}
