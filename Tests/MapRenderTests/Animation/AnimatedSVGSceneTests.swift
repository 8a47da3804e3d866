import Foundation
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// The animated SVG is written from each frame's scene, the one the PNG frames draw: every
/// bubble's text of every frame is in the SVG with the scene's text, size and place, and no SVG
/// bubble text shows in a frame whose scene has none (issue 47: the SVG's second drawer wrote
/// every count at the style's size, centred on the planned bubble).
@Suite struct AnimatedSVGSceneTests {
    /// Two decimals, as the SVG writes numbers (stored as Float first, as its tracks are).
    static func num(_ v: Double) -> String {
        let r = (Double(Float(v)) * 100).rounded() / 100
        if r == r.rounded() { return String(Int(r)) }
        var s = String(format: "%.2f", r)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }

    @Test func bubbleTextsAreTheScenes() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let svgPath = dir.appendingPathComponent("anim.svg").path
        let r = try AnimationTestData.placesRequest(in: dir, output: .animatedSVG(svgPath))
        let scenes = try AnimationRenderer.scenes(r)
        try AnimationRenderer.render(r)
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        // Each bubble text element (centred: labels are not): its text, size, and per frame x, y
        // and whether it shows, as a browser paused at the frame's time reads its attributes and
        // <animate> values (`AnimatedSVGBubbleStackingTests.value`).
        func attribute(_ name: String, in tag: Substring) -> String? {
            guard let r = tag.range(of: " \(name)=\"") else { return nil }
            return String(tag[r.upperBound...].prefix { $0 != "\"" })
        }
        let n = scenes.count
        var texts: [(text: String, size: String, x: [String], y: [String], shown: [String])] = []
        for chunk in svg.components(separatedBy: "<text ").dropFirst() {
            guard let end = chunk.range(of: "</text>") else { continue }
            let element = Substring(" " + chunk[..<end.lowerBound])
            let tag = element.prefix { $0 != ">" }
            guard attribute("text-anchor", in: tag) == "middle", let size = attribute("font-size", in: tag) else { continue }
            let text = element.range(of: "/>", options: .backwards).map { String(element[$0.upperBound...]) } ?? ""
            func frames(_ name: String) -> [String] {
                (0..<n).map { k in AnimatedSVGBubbleStackingTests.value(name, in: element, frame: k, frames: n).map(Self.num) ?? "" }
            }
            texts.append((text, size, frames("x"), frames("y"), frames("opacity")))
        }
        #expect(!texts.isEmpty)
        var checked = 0, smaller = 0
        for (k, frame) in scenes.enumerated() {
            for batch in frame.scene.items.compactMap({ item -> BubbleBatch? in if case .bubbles(let b) = item { b } else { nil } }) {
                for b in batch.bubbles where !b.text.isEmpty {
                    let size = Self.num(b.textSize ?? batch.font.size)
                    let x = Self.num(b.textBox.x + b.textBox.width / 2)
                    // (Two decimals, read just after the frame's key time.)
                    let match = texts.contains { $0.text == b.text && $0.size == size && $0.shown.count > k && $0.shown[k] == "1"
                        && abs((Double($0.x[k]) ?? .nan) - (Double(x) ?? .nan)) <= 0.011 }
                    #expect(match, "frame \(k): \(b.text) at \(x), size \(size) is not in the SVG")
                    checked += 1
                    if b.textSize != nil { smaller += 1 }
                }
            }
            // As many texts show in the SVG's frame as the scene has.
            let shown = texts.filter { $0.shown.count > k && $0.shown[k] == "1" }.count
            #expect(shown == frame.scene.bubbles.filter { !$0.text.isEmpty }.count, "frame \(k)")
        }
        #expect(checked > 0 && smaller > 0, "\(checked) bubble texts checked, \(smaller) set smaller")
        print("AnimatedSVGSceneTests: \(checked) bubble texts of \(scenes.count) frames found in the SVG as the scenes have them (\(smaller) set smaller)")
    }
}
