import Foundation
import Testing
@testable import MapRenderCore

@Suite struct AnimationDiffTests {
    let a = animationKeyframe([
        (.number(1), 10, 50),       // moves
        (.string("b"), 20, 40),     // stays
        (.number(3), -5, 10),       // deleted
        (.string("4"), 0, 0),       // deleted: the string "4" is not the number 4
    ])
    let b = animationKeyframe([
        (.number(4), 1, 1),         // inserted
        (.string("b"), 20, 40),
        (.number(1), 12, 51),
        (.string("new"), 30, 30),   // inserted
    ])

    @Test func kindsAndOrder() throws {
        let tr = try KeyframeDiff.diff(a, b, fileA: "a.csv", fileB: "b.csv")
        // Order of B, then deleted in order of A.
        #expect(tr.ids == [.number(4), .string("b"), .number(1), .string("new"), .number(3), .string("4")])
        #expect(tr.kinds == [.inserted, .unchanged, .moved, .inserted, .deleted, .deleted])
        #expect(tr.rowA == [-1, 1, 0, -1, 2, 3])
        #expect(tr.rowB == [0, 1, 2, 3, -1, -1])
        #expect(tr.count(of: .moved) == 1)
        #expect(tr.count(of: .deleted) == 2)
    }

    @Test func positionsAreMercator() throws {
        let tr = try KeyframeDiff.diff(a, b, fileA: "a.csv", fileB: "b.csv")
        // moved id 1: from A (10, 50) to B (12, 51)
        #expect(tr.fromX[2] == WebMercator.x(lon: 10))
        #expect(tr.fromY[2] == WebMercator.y(lat: 50))
        #expect(tr.toX[2] == WebMercator.x(lon: 12))
        #expect(tr.toY[2] == WebMercator.y(lat: 51))
        // inserted: from = to = B position; deleted: from = to = A position
        #expect(tr.fromX[0] == tr.toX[0] && tr.toX[0] == WebMercator.x(lon: 1))
        #expect(tr.fromY[4] == tr.toY[4] && tr.toY[4] == WebMercator.y(lat: 10))
        // lon -180 is normalised into [0, 1)
        let w = try KeyframeDiff.diff(animationKeyframe([(.number(1), 180, 0)]), animationKeyframe([(.number(1), -180, 0)]),
                                      fileA: "a", fileB: "b")
        #expect(w.kinds == [.unchanged])
        #expect(w.toX == [0])
    }

    @Test func numberAndEqualNumberMatch() throws {
        // 1 and 1.0 are one id; -0 and 0 are one id.
        let tr = try KeyframeDiff.diff(animationKeyframe([(.number(1), 0, 0), (.number(-0.0), 0, 0)]),
                                       animationKeyframe([(.number(1.0), 0, 0), (.number(0), 1, 0)]),
                                       fileA: "a", fileB: "b")
        #expect(tr.kinds == [.unchanged, .moved])
    }

    @Test func emptyKeyframes() throws {
        let tr = try KeyframeDiff.diff(PointSet(), b, fileA: "a", fileB: "b")
        #expect(tr.kinds.allSatisfy { $0 == .inserted })
        #expect(tr.count == b.count)
        let gone = try KeyframeDiff.diff(a, PointSet(), fileA: "a", fileB: "b")
        #expect(gone.kinds.allSatisfy { $0 == .deleted })
        #expect(gone.rowA == [0, 1, 2, 3])
    }

    @Test func duplicateIdIsAnError() {
        var dup = animationKeyframe((0..<20).map { (.string("p\($0)"), Double($0), 0) })
        dup.ids[17] = .string("p3")
        #expect(throws: MapRenderError(.inputMalformed, "day2.geojson: duplicate id \"p3\" (features 3 and 17)")) {
            try KeyframeDiff.diff(a, dup, fileA: "day1.geojson", fileB: "day2.geojson")
        }
        var dupA = a
        dupA.ids[2] = .number(1)
        #expect(throws: MapRenderError(.inputMalformed, "day1.geojson: duplicate id \"1\" (features 0 and 2)")) {
            try KeyframeDiff.diff(dupA, b, fileA: "day1.geojson", fileB: "day2.geojson")
        }
    }

    @Test func missingIdIsAnError() {
        var missing = b
        missing.ids[2] = .missing
        #expect(throws: MapRenderError(.inputMalformed, "b.csv: feature 2 has no id (use --id-field)")) {
            try KeyframeDiff.diff(a, missing, fileA: "a.csv", fileB: "b.csv")
        }
        var null = a
        null.ids[1] = .null
        #expect(throws: MapRenderError(.inputMalformed, "a.csv: feature 1 has no id (use --id-field)")) {
            try KeyframeDiff.diff(null, b, fileA: "a.csv", fileB: "b.csv")
        }
        // A set read without any id column has no ids at all.
        var noIDs = b
        noIDs.ids = []
        #expect(throws: MapRenderError(.inputMalformed, "b.csv: feature 0 has no id (use --id-field)")) {
            try KeyframeDiff.diff(a, noIDs, fileA: "a.csv", fileB: "b.csv")
        }
    }

    @Test func readsRealKeyframesFromCSV() throws {
        let day1 = "id,lat,lon\n1,50,10\n2,40,20\nx,0,0\n"
        let day2 = "id,lat,lon\n2,41,21\n1,50,10\ny,1,1\n"
        let a = try PointReader.read(data: Data(day1.utf8), name: "day1.csv", options: InputOptions()).points
        let b = try PointReader.read(data: Data(day2.utf8), name: "day2.csv", options: InputOptions()).points
        let tr = try KeyframeDiff.diff(a, b, fileA: "day1.csv", fileB: "day2.csv")
        #expect(tr.ids == [.number(2), .number(1), .string("y"), .string("x")])
        #expect(tr.kinds == [.moved, .unchanged, .inserted, .deleted])
    }

    /// Generated keyframes (numbers, strings that look like numbers, -0, shuffled order, ids
    /// kept, dropped and added) against a diff written the plain way, with a dictionary per
    /// keyframe: the same entries in the same order.
    @Test func matchesADictionaryDiffOnGeneratedKeyframes() throws {
        var rng = AnimationTestRandom(seed: 7)
        for round in 0..<40 {
            let n = Int.random(in: 0...(round < 20 ? 30 : 3000), using: &rng)
            func id(_ k: Int) -> PropertyValue {
                switch k % 4 {
                case 0: return k == 0 ? .number(-0.0) : .number(Double(k))
                case 1: return .string(String(k))
                case 2: return .number(Double(k) + 0.5)
                default: return .string("p\(k)")
                }
            }
            let pool = (0..<(2 * n + 1)).map(id)
            var keysA = Array(pool.indices.shuffled(using: &rng).prefix(n))
            var keysB = keysA.filter { _ in Int.random(in: 0..<4, using: &rng) > 0 }
            let inA = Set(keysA)
            keysB += pool.indices.filter { !inA.contains($0) }.prefix(Int.random(in: 0...n, using: &rng))
            keysB.shuffle(using: &rng)
            keysA.shuffle(using: &rng)
            func set(_ keys: [Int]) -> PointSet {
                animationKeyframe(keys.map { (pool[$0], Double($0 % 360) - 180, Double(Int.random(in: -80...80, using: &rng))) })
            }
            let a = set(keysA), b = set(keysB)
            let tr = try KeyframeDiff.diff(a, b, fileA: "a", fileB: "b")
            var rowOfA: [PropertyValue: Int] = [:], rowOfB: [PropertyValue: Int] = [:]
            for i in 0..<a.count { rowOfA[a.ids[i]] = i }
            for j in 0..<b.count { rowOfB[b.ids[j]] = j }
            var ids: [PropertyValue] = [], rowA: [Int] = [], rowB: [Int] = []
            for j in 0..<b.count { ids.append(b.ids[j]); rowA.append(rowOfA[b.ids[j]] ?? -1); rowB.append(j) }
            for i in 0..<a.count where rowOfB[a.ids[i]] == nil { ids.append(a.ids[i]); rowA.append(i); rowB.append(-1) }
            #expect(tr.ids == ids, "round \(round)")
            #expect(tr.rowA == rowA, "round \(round)")
            #expect(tr.rowB == rowB, "round \(round)")
            #expect(tr.count == ids.count)
        }
    }
}
