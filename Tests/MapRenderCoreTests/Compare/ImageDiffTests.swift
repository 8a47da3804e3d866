import Testing
@testable import MapRenderCore

/// Suite names start with "Compare" so `swift test --filter Compare` selects them.
@Suite struct CompareImageDiffTests {
    private let white = RGBAImage.Pixel.white
    private let black = RGBAImage.Pixel.black
    private let red = RGBAImage.Pixel(r: 255, g: 0, b: 0)
    private let yellow = RGBAImage.Pixel(r: 255, g: 255, b: 0)

    /// Black columns, one grey column at `edge`, white columns: an anti-aliased vertical edge.
    private func edgeImage(width: Int = 10, height: Int = 6, edge: Int) -> RGBAImage {
        var image = RGBAImage(width: width, height: height, fill: white)
        for y in 0..<height {
            for x in 0..<edge { image[x, y] = black }
            image[edge, y] = RGBAImage.Pixel(r: 128, g: 128, b: 128)
        }
        return image
    }

    @Test func identicalImagesMatch() throws {
        let a = edgeImage(edge: 4)
        let result = try ImageDiff.compare(a, a, makeDiffImage: true)
        #expect(result.differentPixels == 0)
        #expect(result.antiAliasedPixels == 0)
        #expect(result.totalPixels == 60)
        #expect(result.isMatch)
        // The diff image of identical images is still the faded copy of a.
        let diff = try #require(result.diffImage)
        #expect(diff[0, 0] == RGBAImage.Pixel(r: 230, g: 230, b: 230))   // black faded: 255 - 255 * 0.1
        #expect(diff[9, 0] == white)
    }

    @Test func emptyImagesMatch() throws {
        let empty = RGBAImage(width: 0, height: 0)
        let result = try ImageDiff.compare(empty, empty)
        #expect(result.differentPixels == 0 && result.totalPixels == 0 && result.differentFraction == 0)
    }

    @Test func oneChangedPixelIsCounted() throws {
        let a = RGBAImage(width: 8, height: 8, fill: white)
        var b = a
        b[3, 4] = red
        let result = try ImageDiff.compare(a, b)
        #expect(result.differentPixels == 1)
        #expect(result.antiAliasedPixels == 0)
        #expect(result.differentFraction == 1.0 / 64)
        #expect(result.diffImage == nil)
        // Symmetric.
        #expect(try ImageDiff.compare(b, a).differentPixels == 1)
    }

    @Test func changedCornerPixelIsCounted() throws {
        let a = RGBAImage(width: 4, height: 4, fill: white)
        var b = a
        b[0, 0] = black
        b[3, 3] = black
        #expect(try ImageDiff.compare(a, b).differentPixels == 2)
    }

    @Test func thresholdForgivesSmallColourChanges() throws {
        let a = RGBAImage(width: 4, height: 4, fill: white)
        var slight = a
        slight[1, 1] = RGBAImage.Pixel(r: 250, g: 250, b: 250)   // YIQ delta ~12.6, limit at 0.1 is ~352
        var clear = a
        clear[1, 1] = RGBAImage.Pixel(r: 200, g: 200, b: 200)    // YIQ delta ~1529

        #expect(try ImageDiff.compare(a, slight).differentPixels == 0)
        #expect(try ImageDiff.compare(a, slight, options: .init(threshold: 0)).differentPixels == 1)
        #expect(try ImageDiff.compare(a, clear).differentPixels == 1)
        #expect(try ImageDiff.compare(a, clear, options: .init(threshold: 0.5)).differentPixels == 0)
    }

    @Test func thresholdScalesTheLargestYIQDistance() throws {
        // Black to white: 0.5053 * 255² ≈ 32857 = 35215 * 0.966².
        let a = RGBAImage(width: 1, height: 1, fill: white)
        let b = RGBAImage(width: 1, height: 1, fill: black)
        #expect(try ImageDiff.compare(a, b, options: .init(threshold: 0.96)).differentPixels == 1)
        #expect(try ImageDiff.compare(a, b, options: .init(threshold: 0.97)).differentPixels == 0)
    }

    @Test func antiAliasedEdgeShiftedByOnePixelIsForgiven() throws {
        let a = edgeImage(edge: 4)
        let b = edgeImage(edge: 5)
        let result = try ImageDiff.compare(a, b)
        // Columns 4 and 5 change (grey <-> black, white <-> grey) on all 6 rows.
        #expect(result.differentPixels == 0)
        #expect(result.antiAliasedPixels == 12)

        let strict = try ImageDiff.compare(a, b, options: .init(includeAntiAliased: true))
        #expect(strict.differentPixels == 12)
        #expect(strict.antiAliasedPixels == 0)
    }

    @Test func hardEdgeShiftIsNotAntiAliasing() throws {
        // Without a grey ramp the moved column is a real change.
        var a = RGBAImage(width: 10, height: 6, fill: white)
        for y in 0..<6 { for x in 0..<4 { a[x, y] = black } }
        var b = a
        for y in 0..<6 { b[4, y] = black }
        let result = try ImageDiff.compare(a, b)
        #expect(result.differentPixels == 6)
        #expect(result.antiAliasedPixels == 0)
    }

    @Test func transparentPixelsAreBlendedOntoWhite() throws {
        let transparent = RGBAImage(width: 3, height: 3, fill: .transparent)
        let transparentRed = RGBAImage(width: 3, height: 3, fill: RGBAImage.Pixel(r: 255, g: 0, b: 0, a: 0))
        let opaqueWhite = RGBAImage(width: 3, height: 3, fill: white)
        #expect(try ImageDiff.compare(transparent, opaqueWhite, options: .init(threshold: 0)).differentPixels == 0)
        #expect(try ImageDiff.compare(transparentRed, opaqueWhite, options: .init(threshold: 0)).differentPixels == 0)

        // Half-transparent black on white is mid grey.
        let halfBlack = RGBAImage(width: 3, height: 3, fill: RGBAImage.Pixel(r: 0, g: 0, b: 0, a: 128))
        let grey = RGBAImage(width: 3, height: 3, fill: RGBAImage.Pixel(r: 127, g: 127, b: 127))
        #expect(try ImageDiff.compare(halfBlack, grey).differentPixels == 0)
        #expect(try ImageDiff.compare(halfBlack, opaqueWhite).differentPixels == 9)
    }

    @Test func sizeMismatchThrows() {
        let a = RGBAImage(width: 100, height: 80)
        let b = RGBAImage(width: 120, height: 80)
        #expect(throws: MapRenderError(.inputMalformed, "image sizes differ: 100x80 vs 120x80")) {
            try ImageDiff.compare(a, b)
        }
    }

    @Test func badOptionsAndBuffersThrow() {
        let a = RGBAImage(width: 2, height: 2)
        #expect(throws: MapRenderError(.usage, "threshold must be between 0 and 1, got 1.5")) {
            try ImageDiff.compare(a, a, options: .init(threshold: 1.5))
        }
        var broken = a
        broken.pixels.removeLast()
        #expect(throws: MapRenderError(.inputMalformed, "image buffer has 15 bytes, expected 16 for 2x2 RGBA")) {
            try ImageDiff.compare(a, broken)
        }
    }

    @Test func diffImageMarksDifferencesAndAntiAliasing() throws {
        let a = edgeImage(edge: 4)
        var b = edgeImage(edge: 5)
        b[8, 2] = black                 // a real change inside the white area
        let result = try ImageDiff.compare(a, b, makeDiffImage: true)
        #expect(result.differentPixels == 1)
        #expect(result.antiAliasedPixels == 12)

        let diff = try #require(result.diffImage)
        #expect(diff.width == 10 && diff.height == 6)
        #expect(diff[8, 2] == red)
        for y in 0..<6 {
            #expect(diff[4, y] == yellow)
            #expect(diff[5, y] == yellow)
        }
        // Unchanged pixels: a's brightness faded to 10 % over white.
        #expect(diff[0, 0] == RGBAImage.Pixel(r: 230, g: 230, b: 230))
        #expect(diff[9, 5] == white)
    }

    @Test func diffImageAlternativeColourForDarkerPixels() throws {
        var a = RGBAImage(width: 5, height: 5, fill: white)
        a[4, 4] = black
        var b = RGBAImage(width: 5, height: 5, fill: white)
        b[1, 1] = black                 // darker in b: "added"
        let blue = RGBAImage.Pixel(r: 0, g: 0, b: 255)
        let options = ImageDiff.Options(alpha: 1, diffColorAlt: blue)
        let diff = try #require(try ImageDiff.compare(a, b, options: options, makeDiffImage: true).diffImage)
        #expect(diff[1, 1] == blue)
        #expect(diff[4, 4] == red)      // lighter in b: "removed"
        #expect(diff[0, 0] == white)
    }

    @Test func largeImagesCompareInOnePass() throws {
        var a = RGBAImage(width: 512, height: 512, fill: white)
        for y in stride(from: 0, to: 512, by: 7) { for x in 0..<512 { a[x, y] = RGBAImage.Pixel(r: UInt8(x % 256), g: 40, b: 90) } }
        var b = a
        b[100, 100] = red
        b[200, 300] = red
        #expect(try ImageDiff.compare(a, b).differentPixels == 2)
    }
}
