/// What a track reader saw: the usual ``InputReport`` (rows, accepted samples, malformed rows
/// and bad coordinates, with line numbers) plus the two skips particular to tracks.
///
/// `input.pointsRead` counts accepted samples (every valid row, before coalescing).
public struct TrackReport: Sendable, Equatable {
    public var input: InputReport
    /// Rows skipped because the time is neither ISO 8601 nor a number of seconds.
    public var badTime = 0
    /// Rows skipped because the id field is empty.
    public var missingID = 0
    /// The first few line numbers of each (at most `InputReport.maxExamples`).
    public var badTimeLines: [Int] = []
    public var missingIDLines: [Int] = []
    /// The CSV columns used for the id and the time.
    public var idColumn: String?
    public var timeColumn: String?

    public init(source: String) {
        input = InputReport(source: source)
        input.format = "csv"
    }

    public var skippedTotal: Int { input.skippedTotal + badTime + missingID }

    /// One line per reason, in the style of ``InputReport/warnings()``:
    /// `tracks.csv: skipped 2 rows: time is not ISO 8601 or seconds (lines 4, 9)`.
    public func warnings() -> [String] {
        var lines = input.warnings()
        func line(_ n: Int, _ examples: [Int], _ what: String) {
            guard n > 0 else { return }
            let ex = examples.map(String.init).joined(separator: ", ")
            let more = n > examples.count ? ", ..." : ""
            lines.append("\(input.source): skipped \(n) \(n == 1 ? "row" : "rows"): \(what) (line\(n == 1 ? "" : "s") \(ex)\(more))")
        }
        line(badTime, badTimeLines, "time is not ISO 8601 or seconds")
        line(missingID, missingIDLines, "empty id")
        return lines
    }

    mutating func skipTime(at line: Int) {
        badTime += 1
        if badTimeLines.count < InputReport.maxExamples { badTimeLines.append(line) }
    }

    mutating func skipID(at line: Int) {
        missingID += 1
        if missingIDLines.count < InputReport.maxExamples { missingIDLines.append(line) }
    }
}
