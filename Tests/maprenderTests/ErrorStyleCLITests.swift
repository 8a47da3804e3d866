import Foundation
import Testing

/// One error style: every error starts `maprender: error: `, ArgumentParser's own (a missing
/// argument, an unknown option, a bad value) included; an argument error (exit 64, or 2 for
/// `compare`) adds one line, a pointer to the command's `--help`, and nothing else.
@Suite struct ErrorStyleCLITests {
    let cli = CLITests()

    /// Bad invocations and whether each is an argument error (usage hint expected).
    static let badInvocations: [(args: [String], usage: String?)] = [
        (["samples/pacific.csv"], "render"),                                        // no -o
        (["samples/pacific.csv", "-o", "/tmp/x.png", "--zoom", "30"], "render"),   // out of range
        (["samples/pacific.csv", "-o", "/tmp/x.png", "--marker", "star"], "render"),
        (["samples/pacific.csv", "-o", "/tmp/x.png", "--no-such-option"], "render"),
        (["samples/pacific.csv", "-o", "/tmp/x.unknown"], "render"),               // no format
        (["samples/pacific.csv", "-o", "/tmp/x.jpg", "--quality", "101"], "render"),
        (["render", "samples/pacific.csv", "-o", "/tmp/x.png", "--size"], "render"), // missing value
        (["cluster", "samples/pacific.csv"], "cluster"),
        (["inspect"], "inspect"),
        (["batch"], "batch"),
        (["animate", "samples/pacific.csv", "-o", "/tmp/frames", "--frames", "x"], "animate"),
        (["compare", "samples/pacific.csv"], "compare"),
        (["samples/no-such-file.csv", "-o", "/tmp/x.png"], nil),                   // exit 66
        (["samples/pacific.csv", "-o", "/no/such/folder/x.png"], nil),             // exit 73
        (["samples/pacific.csv", "-o", "/tmp/x.png", "--style", "samples/pacific.csv"], nil), // exit 78
        (["batch", "samples/no-such-manifest.yaml"], nil),
        (["inspect", "samples/no-such-file.csv"], nil),
    ]

    @Test func everyErrorStartsTheSameWay() throws {
        for (args, usage) in Self.badInvocations {
            let r = try cli.run(args)
            #expect(r.status != 0, "\(args)")
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            #expect(lines.first?.hasPrefix("maprender: error: ") == true, "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("Error: "), "\(args): \(r.stderr)")
            if let usage {
                #expect(r.status == (usage == "compare" ? 2 : 64), "\(args): exit \(r.status)")
                #expect(lines.count == 2 && lines[1] == "Usage: see 'maprender \(usage) --help'", "\(args): \(r.stderr)")
            } else {
                #expect(r.status != 64 && lines.count == 1, "\(args): exit \(r.status): \(r.stderr)")
            }
        }
    }

    @Test func helpAndVersionAreNotErrors() throws {
        for args in [["--help"], ["render", "--help"], ["--version"], ["batch", "--help"]] {
            let r = try cli.run(args)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(args): \(r.stderr)")
        }
    }
}
