import Foundation
import Testing
@testable import MapRender

/// Batch outputs stay inside the root even when a folder is swapped for a symbolic link during
/// the run (the hostile sweep sent 146 of 200 maps outside the root that way).
@Suite struct ConfinedWriteTests {
    func folder() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("confined-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return OutputSafety.Identity.canonical(d.path)
    }

    @Test func writesAndMakesFoldersInsideTheRoot() throws {
        let root = try folder(); defer { try? FileManager.default.removeItem(atPath: root) }
        try ConfinedWrite.write(Data("map".utf8), to: root + "/a/b/m.png", root: root)
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/a/b/m.png")) == Data("map".utf8))
        // Replacing keeps the mode and leaves no temporary.
        chmod(root + "/a/b/m.png", 0o640)
        try ConfinedWrite.write(Data("new".utf8), to: root + "/a/b/m.png", root: root)
        let attrs = try FileManager.default.attributesOfItem(atPath: root + "/a/b/m.png")
        #expect((attrs[.posixPermissions] as? Int) == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/a/b") == ["m.png"])
    }

    /// The race itself: the check saw a folder, then a link leading out took its place before
    /// the walk. The walk refuses the link and nothing is written outside.
    @Test func aFolderSwappedForALinkIsRefusedByTheWalk() throws {
        let root = try folder(), outside = try folder()
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(atPath: root + "/out", withDestinationPath: outside)
        #expect {
            try ConfinedWrite.write(Data("map".utf8), beneath: root, parts: ["out", "m.png"], shownAs: root + "/out/m.png")
        } throws: { e in
            (e as? MapRenderError)?.message == "cannot write \(root)/out/m.png: \(root)/out is a file or a symbolic link, not a folder (outputs stay inside \(root))"
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        // By path (links resolved first): it leads outside, refused before any write.
        #expect(throws: MapRenderError.self) { try ConfinedWrite.write(Data("map".utf8), to: root + "/out/m.png", root: root) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }

    /// A link put in place of the map file itself is replaced, never followed.
    @Test func aLinkInPlaceOfTheFileIsReplacedNotFollowed() throws {
        let root = try folder(), outside = try folder()
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        try Data("victim".utf8).write(to: URL(fileURLWithPath: outside + "/victim"))
        try FileManager.default.createSymbolicLink(atPath: root + "/m.png", withDestinationPath: outside + "/victim")
        try ConfinedWrite.write(Data("map".utf8), beneath: root, parts: ["m.png"], shownAs: root + "/m.png")
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside + "/victim")) == Data("victim".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/m.png")) == Data("map".utf8))
    }

    /// Through the runner: a manifest checked confined, then its output folder swapped for a link
    /// leading out before the jobs run. The jobs fail; nothing is written outside.
    @Test func aBatchWhoseFolderIsSwappedWritesNothingOutside() throws {
        let root = try folder(), outside = try folder()
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.copyItem(atPath: BatchFixtures.cities, toPath: root + "/cities.csv")
        try FileManager.default.createDirectory(atPath: root + "/maps", withIntermediateDirectories: false)
        let text = #"{ "defaults": { "input": "cities.csv", "size": "60x40" }, "jobs": [ { "output": "maps/a.png" }, { "output": "maps/b.png" } ] }"#
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: root, allowOutsideRoot: false)
        #expect(manifest.confinedRoot == root)
        try FileManager.default.removeItem(atPath: root + "/maps")
        try FileManager.default.createSymbolicLink(atPath: root + "/maps", withDestinationPath: outside)
        let report = BatchRunner.run(manifest)
        #expect(report.jobs.map(\.status) == [.failed, .failed])
        #expect(report.jobs[0].error?.contains("leads outside") == true, "\(report.jobs[0].error ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }
}
