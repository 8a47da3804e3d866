import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import MapRenderCore
@testable import MapRender

/// Labels' and callouts' text in the animated SVG: one element per point, words in Pango's
/// order, spaces as Pango keeps them, and a file XML can read whatever the names hold.
@Suite struct AnimatedSVGTextTests {
    @Test(arguments: [LayoutOptions.LabelStyle.plain, .callout])
    func textsAreThePointsOwnInPangosOrder(style: LayoutOptions.LabelStyle) throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        // Two points of one name; an Arabic name with Latin after it; a run of spaces; a control character.
        let rows = ["1,Springfield,40.0,-10.0", "2,Springfield,44.0,0.0", "3,القاهرة Cairo 2,36.0,8.0",
                    "4,Wide    spaced   name,48.0,10.0", "5,Bell\u{1}e,38.0,-4.0"]
        let paths = try AnimationTestData.writeCSV([rows, rows.map { $0.replacingOccurrences(of: ".0,", with: ".5,") }], to: dir)
        let svgPath = dir.appendingPathComponent("anim.svg").path
        var r = AnimationRequest(source: .keyframes(paths), output: .animatedSVG(svgPath))
        r.base.width = 640
        r.base.height = 480
        r.base.view = .center(lat: 42, lon: 0, zoom: 3.5)
        r.base.clustering = nil
        r.base.layout.labelField = "name"
        r.base.layout.labelStyle = style
        r.framesPerTransition = 4
        try AnimationRenderer.render(r)
        let data = try Data(contentsOf: URL(fileURLWithPath: svgPath))
        // XML reads it (the control character left out).
        let document = try XMLDocument(data: data)
        let svg = String(decoding: data, as: UTF8.self)
        let texts = try document.nodes(forXPath: "//*[local-name()='g'][@id='maprender-animation']//*[local-name()='text']")
            .map { $0.stringValue ?? "" }
        #expect(texts.filter { $0 == "Springfield" }.count == 2, "\(texts)")
        #expect(texts.contains("\u{2067}القاهرة Cairo 2\u{2069}"), "\(texts)")
        #expect(texts.contains("Wide    spaced   name") && svg.contains("xml:space=\"preserve\""), "\(texts)")
        #expect(texts.contains("Belle"), "\(texts)")
        if style == .callout {
            // Every frame's outline has the same commands, so that a browser can run between them.
            let outlines = try document.nodes(forXPath: "//*[local-name()='animate'][@attributeName='d']/@values")
            #expect(outlines.count == 5)
            for values in outlines.compactMap(\.stringValue) {
                let commands = Set(values.split(separator: ";").map { String($0.filter(\.isLetter)) })
                #expect(commands.count == 1, "\(commands)")
            }
        }
    }

    /// Two bubbles of one name ("Springfield" each: twenty points around two places, all of that
    /// name, so each bubble reads the name alone) keep an element each: bubbles' texts are
    /// followed by the bubble's track, not by their text alone.
    @Test(arguments: [LayoutOptions.LabelStyle.plain, .callout])
    func twoBubblesOfOneNameKeepATextEach(style: LayoutOptions.LabelStyle) throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var rows: [String] = []
        for (g, (lat, lon)) in [(40.0, -5.0), (50.0, 15.0)].enumerated() {
            for k in 0..<20 { rows.append("\(g * 100 + k),Springfield,\(lat + Double(k % 5) * 0.01),\(lon + Double(k / 5) * 0.01)") }
        }
        let paths = try AnimationTestData.writeCSV([rows, rows], to: dir)
        let svgPath = dir.appendingPathComponent("anim.svg").path
        var r = AnimationRequest(source: .keyframes(paths), output: .animatedSVG(svgPath))
        r.base.width = 640
        r.base.height = 480
        r.base.view = .center(lat: 45, lon: 5, zoom: 3.5)
        r.base.layout.labelField = "name"
        r.base.layout.labelStyle = style
        r.framesPerTransition = 2
        try AnimationRenderer.render(r)
        let document = try XMLDocument(data: try Data(contentsOf: URL(fileURLWithPath: svgPath)))
        let texts = try document.nodes(forXPath: "//*[local-name()='g'][@id='maprender-animation']//*[local-name()='text']")
            .compactMap(\.stringValue)
        #expect(texts.filter { $0 == "Springfield" }.count == 2, "\(texts)")
    }
}
