import CCairo
import Foundation
import Testing
import TestSupport
@testable import MapRenderCairo
@testable import MapRenderCore

/// Raster markers are composited in Swift, skipping rows that later markers cover: the image must
/// be the one Cairo paints with one `cairo_paint` per marker, to the last byte.
@Suite struct MarkerStampsTests {
    let symbols = [
        MarkerSymbol(shape: .pin, size: 28, fill: RGBA(0.84, 0.24, 0.16), stroke: .white, strokeWidth: 1.5, opacity: 1),
        MarkerSymbol(shape: .circle, size: 12, fill: RGBA(0.1, 0.4, 0.8), stroke: .white, strokeWidth: 1, opacity: 0.8),
        // Small dots: outlines first, then fills (two passes).
        MarkerSymbol(shape: .circle, size: 6, fill: RGBA(0.2, 0.7, 0.3), stroke: RGBA(0, 0, 0), strokeWidth: 1, opacity: 1),
        MarkerSymbol(shape: .square, size: 10, fill: RGBA(0.9, 0.8, 0.1, 0.6), stroke: RGBA(0.2, 0.2, 0.2), strokeWidth: 1, opacity: 1),
    ]

    /// The pixels of `batch` painted on a 97x61 image (odd sizes; markers also off its edges).
    func pixels(_ batch: MarkerBatch, scale: Double, direct: Bool, bands: Int? = nil) throws -> [UInt8] {
        let w = Int32((97 * scale).rounded(.up)), h = Int32((61 * scale).rounded(.up))
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        cairo_set_source_rgb(cr, 0.7, 0.8, 0.9)
        cairo_paint(cr)
        let stamps = try MarkerStamps(symbols: batch.symbols, scale: scale)
        try stamps.paint(batch, on: cr, scale: scale, direct: direct, bands: bands)
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        return Array(UnsafeBufferPointer(start: data, count: Int(cairo_image_surface_get_stride(surface)) * Int(h)))
    }

    func batch(count: Int, seed: UInt64, symbols: [MarkerSymbol]) -> MarkerBatch {
        var rng = SeededRandom(seed: seed)
        var m = MarkerBatch()
        m.symbols = symbols
        for _ in 0..<count {
            // Clumped: half the markers in a 12 px square, so most are covered many times over.
            let clump = Bool.random(using: &rng)
            m.x.append(clump ? 40 + Double.random(in: 0..<12, using: &rng) : Double.random(in: -20..<117, using: &rng))
            m.y.append(clump ? 30 + Double.random(in: 0..<12, using: &rng) : Double.random(in: -20..<81, using: &rng))
            m.symbol.append(UInt16.random(in: 0..<UInt16(symbols.count), using: &rng))
        }
        return m
    }

    @Test(arguments: [1.0, 2.0, 1.5])
    func compositedImageIsCairosImage(scale: Double) throws {
        for seed in 1...4 as ClosedRange<UInt64> {
            let m = batch(count: 600, seed: seed, symbols: symbols)
            let mine = try pixels(m, scale: scale, direct: true)
            let cairo = try pixels(m, scale: scale, direct: false)
            #expect(mine == cairo, "seed \(seed), scale \(scale): \(zip(mine, cairo).filter { $0 != $1 }.count) bytes differ")
        }
    }

    /// Bands of rows composited apart (on both cores) give Cairo's image whatever their number:
    /// one band, bands cutting through most markers, a band a row, more bands than rows.
    @Test(arguments: [1, 2, 3, 8, 61, 200])
    func anyNumberOfBandsGivesCairosImage(bands: Int) throws {
        for seed in 5...7 as ClosedRange<UInt64> {
            let m = batch(count: 500, seed: seed, symbols: symbols)
            #expect(try pixels(m, scale: 1, direct: true, bands: bands) == pixels(m, scale: 1, direct: false),
                    "seed \(seed), \(bands) bands")
        }
    }

    /// A surface is drawn only when a paint uses it: ten markers of ten symbols (lettered pins,
    /// as the serve overlay draws) draw at most ten of the 160 surfaces, and give Cairo's image.
    @Test func onlyTheSurfacesPaintsUseAreDrawn() throws {
        let ten = (0..<10).map { k in
            MarkerSymbol(shape: k % 2 == 0 ? .pin : .circle, size: 10 + Double(k), fill: RGBA(0.84, 0.24, 0.16 + 0.05 * Double(k)),
                         stroke: .white, strokeWidth: 1.5, opacity: 1)
        }
        var m = MarkerBatch()
        m.symbols = ten
        for k in 0..<10 { m.x.append(5 + 9 * Double(k)); m.y.append(30 + 0.25 * Double(k)); m.symbol.append(UInt16(k)) }
        let stamps = try MarkerStamps(symbols: ten, scale: 1)
        #expect(stamps.drawnSurfaces == 0)
        #expect(try pixels(m, scale: 1, direct: true) == pixels(m, scale: 1, direct: false))
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 97, 61)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        try stamps.paint(m, on: cr, scale: 1)
        #expect(stamps.drawnSurfaces == 10)
    }

    /// Stamps taller than 64 rows (a 40 px pin at scale 2) mark all their rows visible in a band
    /// when any is: still Cairo's image, with bands cutting through them.
    @Test(arguments: [1, 3, 16])
    func tallStampsInBandsGiveCairosImage(bands: Int) throws {
        let tall = [MarkerSymbol(shape: .pin, size: 40, fill: RGBA(0.84, 0.24, 0.16), stroke: .white, strokeWidth: 1.5, opacity: 1),
                    symbols[1]]
        let stamps = try MarkerStamps(symbols: tall, scale: 2)   // (kept: its surfaces go with it)
        #expect(stamps.stamps[0].height > 64)
        for seed in 8...9 as ClosedRange<UInt64> {
            let m = batch(count: 300, seed: seed, symbols: tall)
            #expect(try pixels(m, scale: 2, direct: true, bands: bands) == pixels(m, scale: 2, direct: false),
                    "seed \(seed), \(bands) bands")
        }
    }

    /// The bands tile the image's rows in order, none empty, at most as many as asked, and each
    /// holds no more than its share of the paints' rows but for one row's paints.
    @Test func bandsTileTheRowsWithEvenShares() {
        var rng = SeededRandom(seed: 99)
        for round in 0..<200 {
            let h = Int.random(in: 1...300, using: &rng), parts = Int.random(in: 1...12, using: &rng)
            let heights = (0..<3).map { _ in Int.random(in: 1...70, using: &rng) }
            let crowded = Int.random(in: -80..<h, using: &rng)
            let ops: [(surface: Int32, x: Int32, y: Int32)] = (0..<Int.random(in: 0...400, using: &rng)).map { _ in
                let y = Bool.random(using: &rng) ? crowded : Int.random(in: -80..<(h + 10), using: &rng)
                return (Int32.random(in: 0..<3, using: &rng), 0, Int32(y))
            }
            let bands = MarkerStamps.bands(ops, heights: heights, imageHeight: h, parts: parts)
            #expect(bands.first?.lowerBound == 0 && bands.last?.upperBound == h, "round \(round)")
            #expect(bands.count <= parts && bands.allSatisfy { !$0.isEmpty }, "round \(round)")
            #expect(zip(bands, bands.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "round \(round)")
            // Rows of paints entering the image in each band: within a share and the paints of one row.
            var entering = [Int](repeating: 0, count: h)
            for op in ops {
                let r0 = max(0, Int(op.y)), r1 = min(h, Int(op.y) + heights[Int(op.surface)])
                if r0 < r1 { entering[r0] += r1 - r0 }
            }
            let total = entering.reduce(0, +), widest = entering.max() ?? 0
            for b in bands.dropLast() {
                #expect(entering[b].reduce(0, +) <= (total + parts - 1) / parts + widest, "round \(round)")
            }
        }
    }

    @Test func pinsOnlyAndOneSymbolEach() throws {
        for k in symbols.indices {
            let m = batch(count: 400, seed: UInt64(10 + k), symbols: [symbols[k]])
            #expect(try pixels(m, scale: 1, direct: true) == pixels(m, scale: 1, direct: false), "symbol \(k)")
        }
    }

    @Test func coveredMarkersStillCountWhenLaterOnesAreTranslucent() throws {
        // An opaque pin under a translucent circle: the pin must show through.
        var m = MarkerBatch()
        m.symbols = symbols
        m.x = [50, 50]; m.y = [40, 40]; m.symbol = [0, 1]
        let mine = try pixels(m, scale: 1, direct: true)
        #expect(mine == (try pixels(m, scale: 1, direct: false)))
        var only = m
        only.x = [50]; only.y = [40]; only.symbol = [1]
        #expect(mine != (try pixels(only, scale: 1, direct: true)))
    }
}
