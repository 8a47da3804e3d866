import Foundation
import Testing
import MapRenderCairo
import MapRenderCore
import TestSupport
@testable import MapRender

/// The animated SVG at rest is the still map, checked by librsvg (which draws an SVG's SMIL
/// elements at their base values: the first frame) against the PNG of that frame.
@Suite struct AnimatedSVGStillTests {
    /// A 40x40 field of 4 px circles 0.02° apart (denser than their size): small opaque dots draw
    /// every outline before any fill in the PNG, and must in the SMIL SVG too. Rasterised by
    /// rsvg-convert, the SVG's first frame matches the PNG frame within 0.5% of the pixels
    /// (measured: 0 pixels). With each dot drawn whole, outline and fill together (the writer
    /// before this rule), the field turns white-meshed and 21% of the pixels differ.
    @Test func denseDotsAtRestMatchThePNGFrame() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var paths: [String] = []
        for (n, shift) in [0.0, 0.1].enumerated() {
            var features: [String] = []
            for i in 0..<40 { for j in 0..<40 {
                features.append(#"{"type":"Feature","id":\#(i * 40 + j),"geometry":{"type":"Point","coordinates":[\#(Double(j) * 0.02 + shift),\#(Double(i) * 0.02)]},"properties":{}}"#)
            } }
            let url = dir.appendingPathComponent("key\(n).geojson")
            try ("{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}").write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        let svgPath = dir.appendingPathComponent("anim.svg").path
        var r = AnimationRequest(source: .keyframes(paths), output: .animatedSVG(svgPath))
        r.base.width = 200; r.base.height = 200
        r.base.view = .bbox(GeoBounds(west: -0.2, south: -0.2, east: 1.0, north: 1.0))
        r.base.clustering = nil
        r.base.defaultBasemap = false
        r.base.style.marker.shape = .circle
        r.base.style.marker.size = 4
        r.framesPerTransition = 4
        let (svg, frames) = try AnimationTestData.animatedSVGAndPNGFrames(r, svgPath: svgPath)
        // Two passes: 1600 outlines, then 1600 fills, each its own moving group.
        #expect(svg.components(separatedBy: "type=\"translate\"").count - 1 == 3200)
        let fromSVG = dir.appendingPathComponent("svg.png")
        try CrossFormatTests.runTool("rsvg-convert", package: "librsvg2-bin",
                                     ["--width", "200", "--height", "200", "--output", fromSVG.path, svgPath])
        let expected = try PNGCodec.decode(data: try #require(frames[0]))
        let actual = try PNGCodec.decode(path: fromSVG.path)
        let diff = try ImageDiff.compare(expected, actual)
        #expect(diff.differentFraction <= 0.005, "\(diff.differentPixels) of \(diff.totalPixels) pixels differ")
    }
}
