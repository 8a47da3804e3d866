import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// A bubble showing an aggregate (`cluster.text-field: "sum_population"`) abbreviates it as counts
/// are abbreviated (12.3M, 1.2B) and its text never spills out of the disc (issue 47: "100374k").
@Suite struct BubbleAggregateTests {
    @Test func aggregatesAreAbbreviatedWithUnits() {
        let cases: [(Double, String)] = [
            (0, "0"), (1, "1"), (999, "999"), (999.4, "999"), (999.6, "1k"), (1000, "1k"), (1234, "1.2k"),
            (12_345, "12.3k"), (99_949, "99.9k"), (99_960, "100k"), (123_456, "123k"), (999_499, "999k"),
            (999_960, "1M"), (100_374_000, "100M"), (12_345_678, "12.3M"), (5_000_000, "5M"),
            (1_200_000_000, "1.2B"), (999_999_999_999, "1T"), (1e12, "1T"), (-12_345, "-12.3k"), (0.4, "0"),
        ]
        for (value, text) in cases {
            #expect(ClusterItem.abbreviateAggregate(value) == text, "\(value)")
        }
        // At most three digits from 1 to 1e12.
        var v = 1.0
        while v <= 1e12 {
            let t = ClusterItem.abbreviateAggregate(v)
            #expect(t.filter(\.isNumber).count <= 3 && t.count <= 5, "\(v): \(t)")
            v *= 1.37
        }
    }

    /// Counts keep supercluster's `point_count_abbreviated`, unchanged.
    @Test func countsKeepTheirAbbreviation() {
        #expect(ClusterItem.abbreviate(999) == "999")
        #expect(ClusterItem.abbreviate(1500) == "1.5k")
        #expect(ClusterItem.abbreviate(10_000) == "10k")
        #expect(ClusterItem.abbreviate(1_500_000) == "1500k")
        var style = RenderRequest().style.cluster
        style.textField = "sum_population"
        #expect(MarkPlan.Bubble.text(count: 1_500_000, aggregates: [:], style: style) == "1500k")
        #expect(MarkPlan.Bubble.text(count: 3, aggregates: ["sum_population": 100_374_000], style: style) == "100M")
    }

    /// For every value from 1 to 1e12, at every bubble size of the default style and larger
    /// text, the fitted text is at most the inner diameter of the (possibly grown) disc, and set
    /// no smaller than the floor.
    @Test func anAggregatesTextFitsItsBubble() {
        let measurer = PangoText()
        let style = RenderRequest().style.cluster
        for textSize in [style.textSize, 16, 24] {
            let font = FontSpec(family: style.font, size: textSize, weight: .bold)
            for step in style.steps {
                var v = 1.0
                while v <= 1e12 {
                    for value in [v, -v] {
                        let text = ClusterItem.abbreviateAggregate(value)
                        let fit = BubbleTextFit.fit(text, radius: step.radius, strokeWidth: style.strokeWidth,
                                                    font: font, measurer: measurer)
                        let inner = BubbleTextFit.innerDiameter(radius: fit.radius, strokeWidth: style.strokeWidth)
                        #expect(fit.size.width <= inner + 1e-9, "\(text) at \(textSize) px in r \(step.radius)")
                        #expect(fit.radius >= step.radius)
                        #expect((fit.textSize ?? textSize) >= textSize * BubbleTextFit.floor - 1e-9)
                        // Measured at the size it is drawn at.
                        var f = font
                        f.size = fit.textSize ?? textSize
                        #expect(measurer.measure(text, font: f) == fit.size)
                    }
                    v *= 3.7
                }
            }
        }
    }

    /// A clustered world map showing `sum_population`: every bubble's text box lies within its
    /// disc's inner diameter, and no bubble shows more than three digits.
    @Test func worldMapOfSummedPopulationsFits() throws {
        var r = RenderRequest()
        r.inputs = [TestPaths.repoFile("samples/world_cities.csv")]
        r.aggregates = [.sum(field: "population")]
        r.style.cluster.textField = "sum_population"
        let result = try MapRenderer.render(r)
        let bubbles = result.scene.items.compactMap { item -> BubbleBatch? in
            if case .bubbles(let b) = item { return b } else { return nil }
        }
        #expect(bubbles.flatMap(\.bubbles).count >= 10)
        for batch in bubbles {
            for b in batch.bubbles {
                #expect(b.text.filter(\.isNumber).count <= 3, "\(b.text)")
                let inner = BubbleTextFit.innerDiameter(radius: b.radius, strokeWidth: batch.strokeWidth)
                #expect(b.textBox.width <= inner, "\(b.text): \(b.textBox.width) px in \(inner) px")
                #expect(abs(b.textBox.x + b.textBox.width / 2 - b.x) < 1e-6)
            }
        }
        #expect(bubbles.flatMap(\.bubbles).contains { $0.text.hasSuffix("M") || $0.text.hasSuffix("B") })
    }
}
