import Foundation
import TestSupport
@testable import MapRenderCore

/// Where the input tests find their files: hand-made fixtures next to the tests, and the shared
/// real datasets of the team's shared data, vendored in samples/ and Tests/Data.
enum InputFixtures {
    /// The repository root: this file is `Tests/MapRenderCoreTests/Input/InputFixtures.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // Input
        .deletingLastPathComponent()   // MapRenderCoreTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()


    static let fixtures = repositoryRoot
        .appendingPathComponent("Tests").appendingPathComponent("MapRenderCoreTests")
        .appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }
    /// A dataset of the team's shared data, from its vendored copy (`TestPaths.vendored`).
    static func shared(_ name: String) -> String { TestPaths.shared(name) }

    /// Reads a fixture through `read(data:name:)` so messages start with the bare file name.
    static func readFixture(_ name: String, options: InputOptions = InputOptions(),
                            chunkSize: Int = CSVReader.defaultChunkSize) throws -> LoadedPoints {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(name))
        return try PointReader.read(data: data, name: name, options: options, chunkSize: chunkSize)
    }

    /// The error a throwing call produced, if it was a `MapRenderError`.
    static func error(_ body: () throws -> Void) -> MapRenderError? {
        do {
            try body()
            return nil
        } catch let e as MapRenderError {
            return e
        } catch {
            return nil
        }
    }
}
