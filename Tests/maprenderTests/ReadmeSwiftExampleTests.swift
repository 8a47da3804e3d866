import Foundation
import Testing
import TestSupport

/// The README's Swift examples ("From Swift" in the batch section, "Library use") compile: each is
/// copied into its own file of this test target, which compiles with the tests, and this test
/// fails when a copy, or its imports, is no longer the README's block.
@Suite struct ReadmeSwiftExampleTests {
    /// A Swift block of the README against its copy in `file` (compiled as part of this test target):
    /// the block's `import` lines are the file's, and the rest is the copy between
    /// `// BEGIN README <heading>` and `// END README`.
    @Test(arguments: [("#### From Swift", "ReadmeExampleFromSwift.swift"), ("## Library use", "ReadmeExampleLibraryUse.swift")])
    func swiftExampleIsTheCompiledCopy(heading: String, file: String) throws {
        let block = try #require(try ReadmeDeploymentTests.blocks("swift", in: heading).first, "no swift block under \(heading)")
        var lines = block.components(separatedBy: "\n")
        var imports: [String] = []
        while let first = lines.first, first.hasPrefix("import ") || first.isEmpty {
            if !first.isEmpty { imports.append(first) }
            lines.removeFirst()
        }
        #expect(imports.contains("import MapRender"))
        let copyText = try String(contentsOfFile: TestPaths.repoFile("Tests/maprenderTests/" + file), encoding: .utf8)
        #expect(copyText.split(separator: "\n").filter { $0.hasPrefix("import ") }.map(String.init) == imports,
                "README's \(heading) example imports \(imports): make \(file) import the same")
        let begin = try #require(copyText.range(of: "// BEGIN README \(heading)\n"), "no copy of \(heading) in \(file)")
        let end = try #require(copyText.range(of: "\n// END README", range: begin.upperBound..<copyText.endIndex))
        let copy = String(copyText[begin.upperBound..<end.lowerBound])
        #expect(copy == lines.joined(separator: "\n"),
                "README's \(heading) example changed: copy it into Tests/maprenderTests/\(file) so that it is compiled")
        // The files it reads are shipped, or made by the README (maps.yaml: the batch section).
        let literal = try NSRegularExpression(pattern: #""([^"]+\.(?:csv|geojson|json|yaml))""#)
        for m in literal.matches(in: copy, range: NSRange(copy.startIndex..., in: copy)) {
            let name = (copy as NSString).substring(with: m.range(at: 1))
            #expect(name == "maps.yaml" || FileManager.default.fileExists(atPath: TestPaths.repoFile(name)), "\(heading): \(name) does not exist")
        }
    }
}
