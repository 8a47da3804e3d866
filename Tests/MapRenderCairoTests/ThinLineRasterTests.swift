import CCairo
import Foundation
import Testing
@testable import MapRenderCairo
@testable import MapRenderCore

/// Thin lines drawn into the pixels (`ThinLineRaster`) against Cairo stroking the same scene
/// (`CairoRenderer.directThinLines = false`): another rasteriser of the same paths, so they may
/// differ only at anti-aliased edges.
@Suite struct ThinLineRasterTests {
    /// How two PNGs of one scene compare: pixels beyond the pixelmatch-style threshold (0.1,
    /// anti-aliasing forgiven) over all pixels; the same counted over the inked pixels only
    /// (those unlike the background in either image), with anti-aliasing not forgiven and a
    /// stricter threshold (0.05); and the total ink (darkness below the background, summed over
    /// channels) of the fast image over Cairo's.
    struct Comparison: CustomStringConvertible {
        var differentFraction: Double
        var inkedDifferent: Double
        var inkRatio: Double
        var identical: Bool
        var description: String {
            String(format: "%.3f%% of pixels differ, %.2f%% of inked pixels (strict), ink ratio %.4f", differentFraction * 100, inkedDifferent * 100, inkRatio)
        }
    }

    /// The fast path drew `scene` (its bytes differ from Cairo's) and close to Cairo's strokes:
    /// at most 1% of pixels beyond the threshold, 5% of inked ones, ink within 3%.
    static func expectCloseToCairo(_ scene: Scene, name: String) throws {
        let c = try compare(scene, name: name)
        #expect(!c.identical, "\(name): the fast path drew it")
        #expect(c.differentFraction <= 0.01, "\(name)")
        #expect(c.inkedDifferent <= 0.05, "\(name)")
        #expect(abs(c.inkRatio - 1) <= 0.03, "\(name)")
    }

    static func compare(_ scene: Scene, name: String) throws -> Comparison {
        let fast = CairoRenderer(text: PangoText())
        let slow = CairoRenderer(text: PangoText())
        slow.directThinLines = false
        let a = try fast.render(scene, format: .png), b = try slow.render(scene, format: .png)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-thinlines")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try a.write(to: dir.appendingPathComponent("\(name)-fast.png"))
        try b.write(to: dir.appendingPathComponent("\(name)-cairo.png"))
        let ia = try PNGCodec.decode(data: a), ib = try PNGCodec.decode(data: b)
        let loose = try ImageDiff.compare(ib, ia, options: .init(threshold: 0.1))
        let bg = ib[0, 0]
        var inked = 0, strict = 0
        var inkA = 0.0, inkB = 0.0
        for y in 0..<ia.height {
            for x in 0..<ia.width {
                let p = ia[x, y], q = ib[x, y]
                guard p != bg || q != bg else { continue }
                inked += 1
                inkA += Double(Int(bg.r) - Int(p.r) + Int(bg.g) - Int(p.g) + Int(bg.b) - Int(p.b))
                inkB += Double(Int(bg.r) - Int(q.r) + Int(bg.g) - Int(q.g) + Int(bg.b) - Int(q.b))
                let one = RGBAImage(width: 1, height: 1, pixels: [p.r, p.g, p.b, p.a])
                let two = RGBAImage(width: 1, height: 1, pixels: [q.r, q.g, q.b, q.a])
                if try ImageDiff.compare(two, one, options: .init(threshold: 0.05, includeAntiAliased: true)).differentPixels > 0 { strict += 1 }
            }
        }
        let c = Comparison(differentFraction: loose.differentFraction,
                           inkedDifferent: inked == 0 ? 0 : Double(strict) / Double(inked),
                           inkRatio: inkB == 0 ? 1 : inkA / inkB, identical: a == b)
        print("thin lines vs Cairo, \(name): \(c) (\(dir.path)/\(name)-fast.png, -cairo.png)")
        return c
    }

    func line(_ points: [(Double, Double)], width: Double, color: RGBA, cap: LineCap = .round, join: LineJoin = .round) -> ShapeBatch {
        var b = ShapeBatch(kind: .line, paint: ShapePaint(fill: .clear, stroke: color, strokeWidth: width, cap: cap, join: join))
        for (x, y) in points { b.coords.append(x); b.coords.append(y) }
        b.closeRing(); b.closePath()
        return b
    }

    let berry = RGBA(0.76, 0.094, 0.357, 0.35)
    let ink = RGBA(0.1, 0.2, 0.5)

    /// Horizontal, vertical and diagonal lines of 0.5 to 3 px, on and between pixel centres,
    /// opaque and translucent, each cap.
    @Test func straightLinesOfEachWidthAndCap() throws {
        var s = Scene(width: 320, height: 240, scale: 1, background: RGBA(0.74, 0.84, 0.9))
        var y = 8.0
        for (k, w) in [0.5, 1, 1.5, 2, 2.5, 3].enumerated() {
            let cap: LineCap = [.butt, .round, .square][k % 3]
            let colour = k % 2 == 0 ? ink : berry
            s.items.append(.shapes(line([(10, y), (150, y)], width: w, color: colour, cap: cap)))
            s.items.append(.shapes(line([(10, y + 6.5), (150, y + 6.5)], width: w, color: colour, cap: cap)))
            s.items.append(.shapes(line([(170 + Double(k) * 8, 10), (170 + Double(k) * 8, 120)], width: w, color: colour, cap: cap)))
            s.items.append(.shapes(line([(226.5 + Double(k) * 8, 10), (226.5 + Double(k) * 8, 120)], width: w, color: colour, cap: cap)))
            s.items.append(.shapes(line([(10 + Double(k) * 25, 140), (60 + Double(k) * 25, 230)], width: w, color: colour, cap: cap)))
            s.items.append(.shapes(line([(170 + Double(k) * 20, 230), (230 + Double(k) * 14, 140.3)], width: w, color: colour, cap: cap)))
            y += 15
        }
        try Self.expectCloseToCairo(s, name: "straight")
    }

    /// Very short segments (a circle of 400 vertices 0.16 px apart, a spiral), sharp turns with
    /// round joins, a translucent line crossing itself and three overlapping paths of one batch
    /// (one union: no darker crossings, as Cairo strokes them), lines running off every edge.
    @Test func shortSegmentsTurnsOverlapsAndEdges() throws {
        var s = Scene(width: 320, height: 240, scale: 1, background: RGBA(0.74, 0.84, 0.9))
        s.items.append(.shapes(line((0...400).map { k in
            let a = Double(k) / 400 * 2 * .pi
            return (60 + 10 * cos(a), 50 + 10 * sin(a))
        }, width: 1.5, color: berry)))
        s.items.append(.shapes(line((0...300).map { k in
            let a = Double(k) / 20
            return (60 + a * 2.5 * cos(a), 50 + a * 2.5 * sin(a))
        }, width: 1, color: ink)))
        s.items.append(.shapes(line([(120, 20), (200, 24), (125, 28), (200, 36), (118, 60), (210, 64)], width: 2, color: berry)))
        s.items.append(.shapes(line([(220, 20), (300, 80), (300, 20), (220, 80), (260, 10)], width: 2.5, color: berry)))
        var three = line([(20, 120), (300, 200)], width: 2, color: berry, cap: .butt)
        for (x0, y0, x1, y1) in [(20.0, 200.0, 300.0, 120.0), (160.0, 110.0, 160.5, 230.0)] {
            three.coords += [x0, y0, x1, y1]
            three.closeRing(); three.closePath()
        }
        s.items.append(.shapes(three))
        // Off the image on each side.
        s.items.append(.shapes(line([(-20, 100), (340, 104)], width: 1.5, color: ink)))
        s.items.append(.shapes(line([(5, -30), (315, 270)], width: 2, color: berry, cap: .butt)))
        s.items.append(.shapes(line([(319.6, -5), (319.6, 245)], width: 2, color: ink, cap: .butt)))
        s.items.append(.shapes(line([(-5, 239.5), (330, 239.5)], width: 3, color: berry)))
        try Self.expectCloseToCairo(s, name: "turns")
    }

    /// A letterboxed scene at scale 2: lines clipped to the world's extent (fractional edges),
    /// the translation and scale of the device, and gentle miter joins (an arc of 1° chords).
    @Test func clippedToTheWorldAtScaleTwo() throws {
        var s = Scene(width: 200, height: 150, scale: 2, background: RGBA(0.74, 0.84, 0.9))
        s.world = Rect(x: 20.3, y: 10.6, width: 160.25, height: 120.7)
        for k in 0..<12 {
            let y0 = 5 + Double(k) * 12
            s.items.append(.shapes(line((0...60).map { j in
                let a = Double(j) / 60
                return (-10 + 220 * a, y0 + 40 * sin(a * .pi))
            }, width: 0.5 + Double(k) * 0.1, color: berry, cap: .butt, join: .miter)))
        }
        s.items.append(.shapes(line([(100, -10), (100.25, 170)], width: 1.5, color: ink)))
        try Self.expectCloseToCairo(s, name: "world-clip")
    }

    /// What the fast path leaves to Cairo: sharp miter or bevel turns, dashes, blur, patterns,
    /// wide lines, polygons.
    @Test func scope() throws {
        var pixels = [UInt8](repeating: 0, count: 4 * 100 * 100)
        try pixels.withUnsafeMutableBufferPointer { p in
            let m = cairo_matrix_t(xx: 2, yx: 0, xy: 0, yy: 2, x0: 0, y0: 0)
            let raster = try #require(ThinLineRaster(pixels: p.baseAddress!, width: 100, stride: 400, height: 100, rows: 0..<100, matrix: m))
            let zigzag = [(10.0, 10.0), (40.0, 12.0), (10.0, 14.0)]
            let arc = (0...60).map { j in (Double(j), 20 * sin(Double(j) / 60 * .pi)) }
            #expect(raster.applies(line(zigzag, width: 1, color: ink, join: .round)))
            #expect(!raster.applies(line(zigzag, width: 1, color: ink, join: .miter)))
            #expect(!raster.applies(line(zigzag, width: 1, color: ink, join: .bevel)))
            #expect(raster.applies(line(arc, width: 1, color: ink, join: .miter)))
            #expect(raster.applies(line(arc, width: 1.5, color: ink, cap: .square, join: .bevel)))
            #expect(!raster.applies(line(arc, width: 1.6, color: ink)), "3.2 device px at scale 2")
            var dashed = line(arc, width: 1, color: ink)
            dashed.paint.dash = [2, 1]
            #expect(!raster.applies(dashed))
            var blurred = line(arc, width: 1, color: ink)
            blurred.paint.blur = 0.5
            #expect(!raster.applies(blurred))
            var polygon = line(arc, width: 1, color: ink)
            polygon.kind = .polygon
            #expect(!raster.applies(polygon))
            #expect(ThinLineRaster(pixels: p.baseAddress!, width: 100, stride: 400, height: 100, rows: 0..<100,
                                   matrix: cairo_matrix_t(xx: 1, yx: 0.5, xy: 0, yy: 1, x0: 0, y0: 0)) == nil, "a skew")
        }
    }
}
