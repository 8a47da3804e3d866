import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// A bubble in transition (growing in, shrinking away, its points changing) shows a number
/// between its ends (issue 47: "a bubble in transition shows its number, or a number
/// interpolated between its ends"): the count of the frame at rest before it (none for a new
/// bubble) running to the count of the frame at rest after it (none for one that goes) as its
/// points travel in and out, rounded, at least 1, abbreviated as counts are. The number fits
/// inside the bubble as drawn, set smaller down to `BubbleTextFit.floor` of its size; a bubble
/// too small for it even then (in the first or last frames of growing in or shrinking away) is
/// drawn at the least radius that holds it, never beyond its size at rest: every bubble in
/// transition shows its number. Bubbles in transition are drawn under the settled ones (a bubble
/// shrinking into another covered its count).
@Suite struct TransitionBubbleTextTests {
    typealias Data_ = AnimationTestData

    struct Counts {
        var transitional = 0, shown = 0, tooSmall = 0, smaller = 0, interpolated = 0, middleShowing = 0
        /// Of them, drawn smaller than their count's size (what the test counted before numbers
        /// ran between their ends), and those showing a number.
        var growing = 0, growingShown = 0
        /// Bubbles' labels ("Kyiv +25") checked against the number their bubble shows.
        var labels = 0
        /// The largest radius of a bubble too small for its number.
        var largestTooSmall = 0.0
        /// Drawn larger than the plan's size, the least that holds their number.
        var grown = 0
    }

    static func check(_ r: AnimationRequest, middle: Int) throws -> Counts {
        let style = r.base.style.cluster
        let measurer = PangoText()
        let font = FontSpec(family: style.font, size: style.textSize * r.base.layout.textScale, weight: .bold)
        var smallest = font
        smallest.size = font.size * BubbleTextFit.floor
        let frames = try AnimationRenderer.scenes(r)
        var c = Counts()
        // The number each track showed in the previous frame.
        var previous: [Int: Int] = [:]
        for (plan, scene) in frames {
            defer { previous = Dictionary(plan.bubbles.map { ($0.track, $0.number) }, uniquingKeysWith: { a, _ in a }) }
            guard !plan.atRest else { continue }
            // A bubble's label counts the others as its bubble does ("Kyiv +25" by a 26).
            for l in scene.labels {
                guard let b = l.bubble, let plus = l.text.range(of: " +", options: .backwards) else { continue }
                #expect(l.text[plus.upperBound...] == "\(plan.bubbles[b].number - 1)", "frame \(plan.index): \(l.text) by a bubble of \(plan.bubbles[b].number)")
                c.labels += 1
            }
            var settledSeen = false
            for batch in scene.items.compactMap({ item -> BubbleBatch? in if case .bubbles(let b) = item { b } else { nil } }) {
                for b in batch.bubbles {
                    let p = plan.bubbles[b.planIndex]
                    let moving = p.ghost || abs(p.radius - p.targetRadius) > 1e-9 || p.number != p.count
                    let growing = b.radius < style.step(for: b.count).radius - 1e-9
                    #expect(!(growing && settledSeen), "frame \(plan.index): a bubble in transition over a settled one")
                    if !growing { settledSeen = true }
                    guard moving else { continue }
                    c.transitional += 1
                    if growing { c.growing += 1; if !b.text.isEmpty { c.growingShown += 1 } }
                    // Between its ends: from what it showed in the frame before (none for a new
                    // bubble) towards its count in this frame's plan (none for a bubble that goes).
                    let n0 = previous[p.track] ?? 0, n1 = p.ghost ? 0 : p.count
                    #expect(p.number >= max(1, min(n0, n1)) && p.number <= max(n0, n1, 1),
                            "frame \(plan.index): bubble \(p.track) shows \(p.number), from \(n0) towards \(n1)")
                    if p.number != p.count { c.interpolated += 1 }
                    let number = ClusterItem.abbreviate(p.number)
                    let inner = BubbleTextFit.innerDiameter(radius: b.radius, strokeWidth: batch.strokeWidth)
                    if b.text.isEmpty {
                        c.tooSmall += 1
                        c.largestTooSmall = max(c.largestTooSmall, b.radius)
                    } else {
                        #expect(b.text == number)
                        #expect(b.textBox.width <= inner + 1e-9)
                        // Drawn larger than the plan's size only to hold the number, and then
                        // never beyond its size at rest.
                        if b.radius > p.radius + 1e-9 {
                            #expect(b.radius <= style.step(for: b.count).radius + 1e-9)
                            #expect(abs(BubbleTextFit.innerDiameter(radius: b.radius, strokeWidth: batch.strokeWidth) - b.textBox.width) < 1e-6)
                            c.grown += 1
                        }
                        #expect((b.textSize ?? font.size) >= smallest.size - 1e-9)
                        if b.textSize != nil { c.smaller += 1 }
                        c.shown += 1
                        if plan.index == middle { c.middleShowing += 1 }
                    }
                }
            }
        }
        return c
    }

    /// The Natural Earth places A → B (`AnimationTestData.changed`).
    @Test func midTransitionBubblesShowTheirNumber() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Data_.placesRequest(in: dir)
        let c = try Self.check(r, middle: 3)
        #expect(c.transitional > 50 && c.shown == c.transitional && c.tooSmall == 0)
        #expect(c.interpolated > 0 && c.smaller > 0 && c.middleShowing > 0 && c.grown > 0)
        print("TransitionBubbleTextTests (places): \(c.shown) of \(c.transitional) bubbles in transition show a number (\(c.interpolated) between their ends, \(c.smaller) set smaller); \(c.grown) drawn at the least radius that holds it, \(c.tooSmall) without; \(c.middleShowing) in the middle frame; of those smaller than their count's size \(c.growingShown) of \(c.growing) show one")
    }

    /// Issue 47's case: 300 European cities between two states (`AnimationLabelSideTests.europeKeyframes`).
    @Test func europeanCitiesInTransitionShowTheirNumber() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = AnimationRequest(source: .keyframes(try AnimationLabelSideTests.europeKeyframes(in: dir)), output: .inMemory(format: .png))
        r.base.width = 900
        r.base.height = 700
        r.base.style.marker.shape = .circle
        r.base.style.marker.size = 8
        r.base.layout.labelField = "name"
        r.framesPerTransition = 10
        let c = try Self.check(r, middle: 5)
        #expect(c.transitional > 50 && c.shown == c.transitional && c.tooSmall == 0)
        #expect(c.interpolated > 0 && c.middleShowing > 0 && c.labels > 50)
        print("TransitionBubbleTextTests (Europe): \(c.shown) of \(c.transitional) bubbles in transition show a number (\(c.interpolated) between their ends, \(c.smaller) set smaller); \(c.grown) drawn at the least radius that holds it, \(c.tooSmall) without; \(c.middleShowing) in the middle frame; of those smaller than their count's size \(c.growingShown) of \(c.growing) show one; \(c.labels) bubble labels count as their bubbles")
    }
}
