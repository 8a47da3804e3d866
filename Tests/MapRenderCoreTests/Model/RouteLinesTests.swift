import Foundation
import Testing
@testable import MapRenderCore
import TestSupport

/// `--line-by` joins points into lines through flat arrays (`PointLines`, `ValueGroups`). Checked
/// against the plain reading of its rule (one line per value's text in first-seen order, its
/// points in input order or stably by `--order-by`), written here with a `Dictionary` of strings
/// and an array per line, as `PointLines` was before it was made flat.
@Suite struct RouteLinesTests {
    /// The rule, plainly: (the text naming each line, its points) in the order lines first appear.
    static func reference(_ points: PointSet, field: String, orderBy: String?) -> [(String, [Int])] {
        let column = points.properties.columnIndex(field)
        var groupOf: [String: Int] = [:]
        var groups: [(String, [Int])] = []
        for i in 0..<points.count {
            let v = column.map { points.properties.value(column: $0, row: i) } ?? points.ids[i]
            guard let key = v.displayText else { continue }
            if let g = groupOf[key] { groups[g].1.append(i) } else { groupOf[key] = groups.count; groups.append((key, [i])) }
        }
        let order = orderBy.flatMap { points.properties.columnIndex($0) }
        return groups.filter { $0.1.count >= 2 }.map { key, members in
            guard let o = order else { return (key, members) }
            return (key, members.enumerated().sorted { a, b in
                let c = PointLines.compare(points.properties.value(column: o, row: a.element), points.properties.value(column: o, row: b.element))
                return c != 0 ? c < 0 : a.offset < b.offset
            }.map(\.element))
        }
    }

    /// Property over 300 generated tables: device values that are texts, numbers (7 and "7" join),
    /// -0 and 0, missing, null, booleans, a text in two Unicode normal forms (one line, as Swift's
    /// `==` has it), interleaved rows; with and without an order. The lines, their order, their
    /// coordinates and their properties' rows are the reference's.
    @Test func linesAreTheRulesLines() {
        var rng = SeededRandom(seed: 4848)
        let pool: [PropertyValue] = [.string("dev1"), .string("dev2"), .number(7), .string("7"), .number(0), .number(-0.0),
                                     .string("0"), .missing, .null, .bool(true), .string("true"), .string("caf\u{e9}"),
                                     .string("cafe\u{301}"), .string(""), .number(2.5), .json("[1]"), .string("a long device name, 24+")]
        for round in 0..<300 {
            var points = PointSet()
            let dev = points.properties.addColumn("device"), t = points.properties.addColumn("t")
            let n = Int.random(in: 0...80, using: &rng)
            let used = pool.shuffled(using: &rng).prefix(Int.random(in: 1...pool.count, using: &rng))
            for _ in 0..<n {
                points.lon.append(Double.random(in: -180...180, using: &rng)); points.lat.append(Double.random(in: -80...80, using: &rng))
                let order: PropertyValue = Int.random(in: 0..<5, using: &rng) == 0 ? .missing : .number(Double(Int.random(in: 0..<6, using: &rng)))
                points.properties.appendRow([(dev, used.randomElement(using: &rng)!), (t, order)])
            }
            let orderBy: String? = round % 2 == 0 ? nil : "t"
            let lines = PointLines(field: "device", orderBy: orderBy).lines(from: points)
            let expected = Self.reference(points, field: "device", orderBy: orderBy)
            #expect(lines.shapeCount == expected.count, "round \(round)")
            guard lines.shapeCount == expected.count else { continue }
            for (s, (key, members)) in expected.enumerated() {
                let ring = lines.rings(of: s).lowerBound
                let coords = Array(lines.coords[(2 * lines.ringStart[ring])..<(2 * lines.ringStart[ring + 1])])
                #expect(coords == members.flatMap { [points.lon[$0], points.lat[$0]] }, "round \(round) line \(key)")
                #expect(lines.feature[s] == members[0])
                let row = lines.propertyRow(of: s)!
                #expect(lines.properties.value("device", row: row) == points.properties.value(column: dev, row: members[0]))
                #expect(lines.properties.value("device", row: row).displayText == key)
            }
        }
    }

    /// Grouped by ids (a field that is no property, the CSV `id` column): the line carries the id's text.
    @Test func linesByIDsCarryTheID() {
        var points = PointSet()
        for (k, id) in [PropertyValue.number(3), .string("x"), .number(3), .string("x"), .number(4)].enumerated() {
            points.lon.append(Double(k)); points.lat.append(0); points.ids.append(id); points.properties.appendEmptyRow()
        }
        let lines = PointLines(field: "id").lines(from: points)
        #expect(lines.shapeCount == 2)
        #expect(lines.coords == [0, 0, 2, 0, 1, 0, 3, 0])
        #expect(lines.properties.value("id", row: 0) == .string("3") && lines.properties.value("id", row: 1) == .string("x"))
    }
}
