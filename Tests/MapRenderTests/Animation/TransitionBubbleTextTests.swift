import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// A bubble in transition (growing in, shrinking away) shows its number whenever the number fits
/// it as drawn, set smaller down to `BubbleTextFit.floor` of its size (issue 47: bubbles in
/// transition showed no number until 60 % of their size, and vanishing ones none at all), and is
/// drawn under the settled bubbles (a bubble shrinking into another covered its count).
@Suite struct TransitionBubbleTextTests {
    typealias Data_ = AnimationTestData

    @Test func midTransitionBubblesShowTheirNumber() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = Data_.request(.keyframes(try Data_.placesKeyframes(in: dir)))
        r.base.width = 640
        r.base.height = 400
        r.framesPerTransition = 24
        r.clusterTransition = 0.25
        let style = r.base.style.cluster
        let measurer = PangoText()
        let font = FontSpec(family: style.font, size: style.textSize * r.base.layout.textScale, weight: .bold)
        var smallest = font
        smallest.size = font.size * BubbleTextFit.floor
        var transitional = 0, shown = 0, framesShowing = 0, smaller = 0, middleShowing = 0
        for (plan, scene) in try AnimationRenderer.scenes(r) where !plan.atRest {
            var showing = false
            var settledSeen = false
            for batch in scene.items.compactMap({ item -> BubbleBatch? in if case .bubbles(let b) = item { b } else { nil } }) {
                for b in batch.bubbles {
                    let moving = b.radius < style.step(for: b.count).radius - 1e-9
                    // Drawn under every settled bubble.
                    #expect(!(moving && settledSeen), "frame \(plan.index): a bubble in transition over a settled one")
                    if !moving { settledSeen = true; continue }
                    transitional += 1
                    let inner = BubbleTextFit.innerDiameter(radius: b.radius, strokeWidth: batch.strokeWidth)
                    let number = ClusterItem.abbreviate(b.count)
                    if b.text.isEmpty {
                        // Hidden only when the number would spill out of the bubble at the smallest size.
                        #expect(measurer.measure(number, font: smallest).width > inner, "\(number) hidden in r \(b.radius)")
                    } else {
                        #expect(b.text == number)
                        #expect(b.textBox.width <= inner + 1e-9)
                        #expect((b.textSize ?? font.size) >= smallest.size - 1e-9)
                        if b.textSize != nil { smaller += 1 }
                        shown += 1
                        showing = true
                        if plan.index == 12 { middleShowing += 1 }
                    }
                }
            }
            if showing { framesShowing += 1 }
        }
        #expect(transitional > 0)
        #expect(shown > 0 && framesShowing > 0, "\(shown) of \(transitional) bubbles in transition show their number")
        // The middle frame's scene holds the numbers of bubbles in transition, some set smaller.
        #expect(middleShowing > 0 && smaller > 0, "middle frame: \(middleShowing) numbers; \(smaller) set smaller")
        print("TransitionBubbleTextTests: \(shown) of \(transitional) bubbles in transition show their number (\(smaller) set smaller) in \(framesShowing) frames; \(middleShowing) in the middle frame")
    }
}
