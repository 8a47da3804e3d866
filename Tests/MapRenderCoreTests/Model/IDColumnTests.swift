import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// The id column reads back exactly what was put in, whether it keeps numbers or values.
@Suite struct IDColumnTests {
    @Test func numbersAreKeptAsNumbersUntilAnotherKindComes() {
        var ids: IDColumn = [.number(1), .number(-0.0), .number(2.5)]
        ids.append(.number(7))
        #expect(Array(ids) == [.number(1), .number(-0.0), .number(2.5), .number(7)])
        #expect(ids.keepsNumbers)
        if case .number(let z) = ids[1] { #expect(z.sign == .minus) } else { Issue.record("not a number") }
        ids.append(.missing)
        #expect(!ids.keepsNumbers)
        ids[0] = .string("a")
        #expect(Array(ids) == [.string("a"), .number(-0.0), .number(2.5), .number(7), .missing])
        #expect(ids == [.string("a"), .number(-0.0), .number(2.5), .number(7), .missing])
        #expect(ids != [.string("a"), .number(0.5), .number(2.5), .number(7), .missing])
    }

    /// Random edits applied to an `IDColumn` and to an array of values give the same ids.
    @Test(arguments: 1...20)
    func behavesLikeAnArrayOfValues(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var column = IDColumn(), model: [PropertyValue] = []
        func value() -> PropertyValue {
            switch rng.next() % 10 {
            case 0: return .missing
            case 1: return .string("s\(rng.next() % 5)")
            case 2: return .bool(rng.next() % 2 == 0)
            default: return .number(Double(Int(rng.next() % 1000) - 500) / 4)
            }
        }
        // Mostly numbers at first, so that both ways of keeping them are exercised.
        for step in 0..<300 {
            let numbersOnly = step < 150 && seed % 2 == 0
            var v = value()
            if numbersOnly, case .number = v {} else if numbersOnly { v = .number(Double(step)) }
            switch rng.next() % 4 {
            case 0, 1:
                column.append(v)
                model.append(v)
            case 2 where !model.isEmpty:
                let i = Int(rng.next() % UInt64(model.count))
                column[i] = v
                model[i] = v
            default:
                let a = model.isEmpty ? 0 : Int(rng.next() % UInt64(model.count + 1))
                let b = min(model.count, a + Int(rng.next() % 3))
                let new = [v, v]
                column.replaceSubrange(a..<b, with: new)
                model.replaceSubrange(a..<b, with: new)
            }
            #expect(Array(column) == model, "step \(step)")
            if Array(column) != model { return }
        }
        #expect(IDColumn(model) == column)
    }

    @Test func readersKeepNumberedIdsAsNumbers() throws {
        let csv = "id,lat,lon\n1,10,20\n2,11,21\n3,12,22\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("idcolumn-\(UUID().uuidString).csv").path
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = InputOptions()
        options.idField = "id"
        let read = try PointReader.read(path: path, options: options)
        #expect(Array(read.points.ids) == [.number(1), .number(2), .number(3)])
        #expect(read.points.ids.keepsNumbers)
        #expect(read.points.selecting([2, 0]).ids == [.number(3), .number(1)])
    }
}
