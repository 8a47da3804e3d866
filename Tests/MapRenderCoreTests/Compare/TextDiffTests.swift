import Testing
import MapRenderCore

@Suite struct CompareTextDiffTests {
    @Test func equalTextsHaveNoDifference() {
        #expect(TextDiff.firstDifference("", "") == nil)
        #expect(TextDiff.firstDifference("<svg>\n</svg>\n", "<svg>\n</svg>\n") == nil)
    }

    @Test func reportsFirstDifferingLine() throws {
        let d = try #require(TextDiff.firstDifference("<svg>\n<path d=\"M0 0\"/>\n<g/>\n", "<svg>\n<path d=\"M0 1\"/>\n<h/>\n"))
        #expect(d.line == 2)
        #expect(d.expected == "<path d=\"M0 0\"/>")
        #expect(d.actual == "<path d=\"M0 1\"/>")
    }

    @Test func reportsMissingAndExtraLines() throws {
        let extra = try #require(TextDiff.firstDifference("a\nb", "a\nb\nc"))
        #expect(extra.line == 3 && extra.expected == TextDiff.endOfText && extra.actual == "c")
        let missing = try #require(TextDiff.firstDifference("a\nb\nc", "a"))
        #expect(missing.line == 2 && missing.expected == "b" && missing.actual == TextDiff.endOfText)
        // A trailing newline is an (empty) extra line.
        let newline = try #require(TextDiff.firstDifference("a", "a\n"))
        #expect(newline.line == 2 && newline.actual == "")
    }

    @Test func lineEndingsDoNotMatter() {
        #expect(TextDiff.firstDifference("a\r\nb\r\n", "a\nb\n") == nil)
    }
}
