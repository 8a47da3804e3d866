import Foundation
import Testing
import TestSupport

/// The binary the README's install line copies (`.build/release/maprender`, built by scripts/setup
/// with `--static-swift-stdlib`) runs without the Swift toolchain: `ldd` resolves no library from
/// the toolchain and none of Swift's runtime libraries at all (libswiftCore, Foundation, Dispatch).
///
/// A release build takes minutes, so this test does not build it: it checks the binary scripts/setup
/// left, and is skipped, saying so, when there is none (a clone where only `swift test` ran). The
/// debug binary the other CLI tests run is built without `--static-swift-stdlib` and is not checked
/// by `swift test` alone. CI (`.ci/run`) builds the debug binary with `--static-swift-stdlib` in a
/// folder of its own (the same link as scripts/setup's, without a release build's minutes) and runs
/// this test on it, naming it in `MAPRENDER_PORTABLE_BINARY`; a path named there must exist.
@Suite struct PortableBinaryTests {
    static let named = ProcessInfo.processInfo.environment["MAPRENDER_PORTABLE_BINARY"].flatMap { $0.isEmpty ? nil : $0 }
    static let releaseBinary = named ?? TestPaths.repoFile(".build/release/maprender")
    static var hasReleaseBinary: Bool { named != nil || FileManager.default.isExecutableFile(atPath: releaseBinary) }

    /// The toolchain's root: where `swift` on the PATH resolves, two folders up (/opt/swift for
    /// /opt/swift/usr/bin/swift); nil when no swift is on the PATH.
    static func toolchainRoot() -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent("swift")
            guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
            return candidate.resolvingSymlinksInPath().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().path
        }
        return nil
    }

    @Test(.enabled(if: PortableBinaryTests.hasReleaseBinary,
                   "no .build/release/maprender: scripts/setup builds it (swift build -c release --static-swift-stdlib --product maprender)"))
    func releaseBinaryLinksNothingOfTheSwiftToolchain() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.releaseBinary), "no executable at \(Self.releaseBinary)")
        let r = try ReadmeEveryCommandTests.run("/usr/bin/ldd", [Self.releaseBinary])
        try #require(r.status == 0, Comment(rawValue: r.output))
        let lines = r.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let root = try #require(Self.toolchainRoot(), "no swift on the PATH")
        let hint = "build it with scripts/setup (swift build -c release --static-swift-stdlib --product maprender)"
        for line in lines {
            #expect(!line.contains(root + "/"), "links a library of the toolchain at \(root): \(line); \(hint)")
            #expect(!line.contains("not found"), "\(line)")
            for swiftLibrary in ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"] {
                #expect(!line.hasPrefix(swiftLibrary), "links Swift's \(line); \(hint)")
            }
        }
        // And it runs with no library path pointing into the toolchain.
        var env = ProcessInfo.processInfo.environment
        env["LD_LIBRARY_PATH"] = nil
        env["PATH"] = "/usr/bin:/bin"
        let version = try ReadmeEveryCommandTests.run(Self.releaseBinary, ["--version"], environment: env)
        #expect(version.status == 0 && !version.output.isEmpty, Comment(rawValue: version.output))
    }
}
