import Foundation
import Testing
@testable import MapRenderCore

/// Text along lines: upright, repeated at the spacing, left out where it does not fit or where
/// the line bends too much. Expected values are worked by hand from the geometry.
@Suite struct LineLabelPlacementTests {
    /// "ABCDE": five 10 px clusters, 12 px high, baseline 9 px below the top.
    static let run: GlyphRun = {
        var r = GlyphRun()
        for (k, c) in ["A", "B", "C", "D", "E"].enumerated() {
            r.clusters.append(c); r.x.append(Double(k) * 10); r.advance.append(10)
        }
        r.width = 50; r.height = 12; r.baseline = 9
        return r
    }()

    static func close(_ a: [Double], _ b: [Double]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-9 }
    }

    static func path(_ points: [(Double, Double)]) -> LineLabelPlacement.Path {
        LineLabelPlacement.Path(x: points.map(\.0), y: points.map(\.1))
    }

    @Test func straightLineLeftToRight() throws {
        let p = try #require(LineLabelPlacement.placements(along: Self.path([(0, 100), (200, 100)]), run: Self.run).first)
        #expect(!p.flipped)
        // Centred at 100: glyphs start at 75, 85, ...; the text's box is centred on the line, so
        // the baseline lies 9 - 6 = 3 px below it.
        #expect(Self.close(p.glyphs.map(\.x), [75, 85, 95, 105, 115]))
        #expect(p.glyphs.allSatisfy { $0.y == 103 && $0.angle == 0 })
        #expect(p.boxes.first == Rect(x: 75, y: 94, width: 10, height: 12))
    }

    @Test func keptUprightOnALineDrawnRightToLeft() throws {
        let path = Self.path([(200, 100), (0, 100)])
        let p = try #require(LineLabelPlacement.placements(along: path, run: Self.run).first)
        #expect(p.flipped)
        // Read left to right, not upside down: the same glyphs as on the line drawn the other way.
        #expect(Self.close(p.glyphs.map(\.x), [75, 85, 95, 105, 115]))
        #expect(p.glyphs.allSatisfy { abs($0.angle) < 1e-12 })
        #expect(p.glyphs.map(\.text).joined() == "ABCDE")
    }

    @Test(arguments: [0.0, 30, 60, 89, 91, 120, 150, 179, 181, 240, 269, 271, 300, 330])
    func uprightAtEveryDirection(_ degrees: Double) throws {
        let a = degrees * .pi / 180
        let path = Self.path([(300, 300), (300 + 200 * cos(a), 300 + 200 * sin(a))])
        let p = try #require(LineLabelPlacement.placements(along: path, run: Self.run).first)
        // Every glyph turned by less than a right angle either way: the text never reads upside down,
        // and its first glyph is left of its last.
        #expect(p.glyphs.allSatisfy { abs($0.angle) <= .pi / 2 + 1e-9 }, "\(degrees)°: \(p.glyphs.map(\.angle))")
        #expect(p.glyphs[0].x <= p.glyphs[4].x + 1e-9)
    }

    @Test func repeatedAtTheSpacing() {
        let path = Self.path([(0, 50), (1000, 50)])
        var options = LineLabelPlacement.Options()
        options.spacing = 250
        let ps = LineLabelPlacement.placements(along: path, run: Self.run, options: options)
        // 1000 px holds four labels, centred at 125, 375, 625 and 875.
        #expect(ps.map(\.anchor) == [125, 375, 625, 875])
        for (a, b) in zip(ps, ps.dropFirst()) { #expect(b.anchor - a.anchor >= options.spacing) }
        // Shorter than two spacings: one, in the middle.
        #expect(LineLabelPlacement.placements(along: Self.path([(0, 0), (400, 0)]), run: Self.run).map(\.anchor) == [200])
    }

    @Test func leftOutWhereTheTextDoesNotFit() {
        #expect(LineLabelPlacement.placements(along: Self.path([(0, 0), (49, 0)]), run: Self.run).isEmpty)
        #expect(LineLabelPlacement.placements(along: Self.path([(0, 0), (50, 0)]), run: Self.run).count == 1)
    }

    @Test func droppedOnASharpBend() {
        // A right angle under the middle of the text: 90° > 45°.
        let corner = Self.path([(0, 100), (100, 100), (100, 200)])
        #expect(LineLabelPlacement.place(Self.run, at: 100, on: corner) == nil)
        // Allowed up to 100°, it is laid round the corner, its glyphs turning with it.
        var wide = LineLabelPlacement.Options()
        wide.maxAngle = 100
        let p = LineLabelPlacement.place(Self.run, at: 100, on: corner, options: wide)
        #expect(p != nil)
        #expect(abs((p?.glyphs.first?.angle ?? 1)) < 1e-12 && abs((p?.glyphs.last?.angle ?? 0) - .pi / 2) < 1e-12)
        // A 30° bend is fine; and away from the corner the label does not see it.
        let gentle = Self.path([(0, 100), (100, 100), (100 + 100 * cos(.pi / 6), 100 + 100 * sin(.pi / 6))])
        #expect(LineLabelPlacement.place(Self.run, at: 100, on: gentle) != nil)
        #expect(LineLabelPlacement.place(Self.run, at: 160, on: corner) != nil)
    }

    @Test func turnsAddUpOverTheWindowWithTheirSign() {
        // Two 30° turns 5 px apart the same way: 60° within the window (3/5 of 12 px = 7.2 px).
        let a = 30.0 * .pi / 180
        let p1 = (100 + 5 * cos(a), 100 + 5 * sin(a))
        let same = Self.path([(0, 100), (100, 100), p1, (p1.0 + 100 * cos(2 * a), p1.1 + 100 * sin(2 * a))])
        #expect(LineLabelPlacement.place(Self.run, at: 102, on: same) == nil)
        // One 30° turn and one back: a wiggle, 0° in all.
        let wiggle = Self.path([(0, 100), (100, 100), p1, (p1.0 + 100, p1.1)])
        #expect(LineLabelPlacement.place(Self.run, at: 102, on: wiggle) != nil)
    }

    @Test func visiblePiecesOfALongLine() {
        // In, out past the right edge, back in.
        let path = Self.path([(10, 10), (90, 10), (300, 10), (300, 50), (90, 50), (10, 50)])
        let pieces = path.visiblePieces(width: 100, height: 100, margin: 0)
        #expect(pieces.count == 2)
        #expect(pieces.first?.x == [10, 90, 300] && pieces.last?.x == [300, 90, 10])
    }
}
