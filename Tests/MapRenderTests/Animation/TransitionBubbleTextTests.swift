import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// A bubble in transition (growing in, shrinking away) shows its number whenever the number fits
/// it as drawn (issue 47: bubbles in transition showed no number until 60 % of their size, and
/// vanishing ones none at all).
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
        var transitional = 0, shown = 0, framesShowing = 0
        for (plan, scene) in try AnimationRenderer.scenes(r) where !plan.atRest {
            var showing = false
            for batch in scene.items.compactMap({ item -> BubbleBatch? in if case .bubbles(let b) = item { b } else { nil } }) {
                for b in batch.bubbles where b.radius < style.step(for: b.count).radius - 1e-9 {
                    transitional += 1
                    let inner = BubbleTextFit.innerDiameter(radius: b.radius, strokeWidth: batch.strokeWidth)
                    let number = ClusterItem.abbreviate(b.count)
                    if b.text.isEmpty {
                        // Hidden only when the number would spill out of the bubble.
                        #expect(measurer.measure(number, font: font).width > inner, "\(number) hidden in r \(b.radius)")
                    } else {
                        #expect(b.text == number)
                        #expect(b.textBox.width <= inner + 1e-9)
                        shown += 1
                        showing = true
                    }
                }
            }
            if showing { framesShowing += 1 }
        }
        #expect(transitional > 0)
        #expect(shown > 0 && framesShowing > 0, "\(shown) of \(transitional) bubbles in transition show their number")
    }
}
