import Foundation
import Testing
@testable import MapRenderCore

/// `InputOptions.namesOnly` (what `maprender inspect` reads with) must report what a full read
/// reports: the same points, skips, invalid UTF-8 tally, property names and ids with values.
@Suite("Input read with names only")
struct InputNamesOnlyReadTests {
    typealias F = InputFixtures

    /// Reads `data` both ways under `options` and compares everything a names-only read keeps.
    /// `expectSame` with the default options, with `idField`, and with `idField` keeping only
    /// `name`; returns the last options.
    @discardableResult
    private func expectSameWithIDField(_ data: Data, name: String, idField: String,
                                       sourceLocation: SourceLocation = #_sourceLocation) throws -> InputOptions {
        try expectSame(data, name: name, sourceLocation: sourceLocation)
        var o = InputOptions()
        o.idField = idField
        try expectSame(data, name: name, options: o, sourceLocation: sourceLocation)
        o.keepProperties = ["name"]
        try expectSame(data, name: name, options: o, sourceLocation: sourceLocation)
        return o
    }

    private func expectSame(_ data: Data, name: String, options: InputOptions = InputOptions(),
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let full = try PointReader.read(data: data, name: name, options: options)
        var o = options
        o.namesOnly = true
        let names = try PointReader.read(data: data, name: name, options: o)
        #expect(full.namesOnly == nil, sourceLocation: sourceLocation)
        #expect(names.report == full.report, "\(name)", sourceLocation: sourceLocation)
        #expect(names.points.lon == full.points.lon && names.points.lat == full.points.lat, "\(name)",
                sourceLocation: sourceLocation)
        #expect(names.namesOnly?.propertyNames == full.points.properties.names, "\(name)", sourceLocation: sourceLocation)
        let withIDs = full.points.ids.filter { if case .missing = $0 { return false } else { return true } }.count
        #expect(names.namesOnly?.pointsWithIDs == withIDs, "\(name)", sourceLocation: sourceLocation)
        #expect(names.points.properties.names.isEmpty && names.points.ids.isEmpty, sourceLocation: sourceLocation)
    }

    private func bytes(_ parts: [Any]) -> Data {
        var d = Data()
        for p in parts {
            if let s = p as? String { d.append(contentsOf: Array(s.utf8)) } else { d.append(contentsOf: p as! [UInt8]) }
        }
        return d
    }

    @Test func samplesAndFixtures() throws {
        let files = ["populated_places.geojson", "ne_110m_admin_0_countries.geojson", "world_cities.csv",
                     "airports_us.csv", "capitals.csv", "tracks.csv"].map { F.repositoryRoot.appendingPathComponent("samples").appendingPathComponent($0).path }
            + ["mixed.geojson", "multipoint.geojson", "single_feature.geojson", "bare_point.geojson", "quoted.csv",
               "ragged.csv", "invalid_coords.csv", "bom_crlf.csv", "semicolon.csv", "tabs.tsv"].map { F.fixture($0) }
        for path in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try expectSame(data, name: path)
            var kept = InputOptions()
            kept.keepProperties = ["name"]
            try expectSame(data, name: path, options: kept)
        }
    }

    @Test func geoJSONWithInvalidUTF8EscapesAndIDs() throws {
        let bad: [UInt8] = [0xC3, 0x28]
        let data = bytes([
            #"{"type":"FeatureCollection","features":["#,
            #"{"type":"Feature","id":"a","properties":{"name":"x"#, bad, #"","n":1,"o":{"k":[1,""#, bad,
            #""]},"e\u00e9":"\ud83d\ude00","code":null},"geometry":{"type":"Point","coordinates":[1,2]}},"#,
            #"{"type":"Feature","properties":{"k"#, bad, #"":true,"name":"y","code":"C"},"geometry":{"type":"MultiPoint","coordinates":[[3,4],[5,6]]}},"#,
            #"{"type":"Feature","properties":{"only":"skipped"},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}},"#,
            #"{"type":"Feature","properties":{"late":1,"name":"z"},"geometry":null},"#,
            #"{"type":"Feature","id":7,"properties":{"code":NaN,"name":"w"},"geometry":{"type":"Point","coordinates":[7,8]}}"#,
            "]}",
        ])
        var o = try expectSameWithIDField(data, name: "t.geojson", idField: "code")
        o.idField = nil
        o.keepProperties = []
        try expectSame(data, name: "t.geojson", options: o)

        var counted = InputOptions()
        counted.namesOnly = true
        let r = try PointReader.read(data: data, name: "t.geojson", options: counted)
        #expect(r.report.invalidUTF8 == 3 && r.report.firstInvalidUTF8 == 0)
        #expect(r.namesOnly?.propertyNames == ["name", "n", "o", "eé", "code", "k\u{FFFD}("])
    }

    @Test func csvWithInvalidUTF8AndIDs() throws {
        let bad: [UInt8] = [0xE2, 0x82]
        let data = bytes(["id,name,lat,lon,kind\n", "1,a,1,2,x\n", "", bad, ",b", bad, ",3,4,y\n", ",c,5,6\n",
                          "4,d,95,0,z\n", "5,e,7,8,", bad, "\n"])
        try expectSameWithIDField(data, name: "t.csv", idField: "kind")
    }

    @Test func errorsAreTheSame() throws {
        for text in [#"{"type":"Feature","properties":{"a":"\x"},"geometry":null}"#,
                     #"{"type":"Feature","properties":{"a":01},"geometry":null}"#,
                     #"{"type":"Feature","properties":{"a":[1,}"#] {
            var o = InputOptions()
            o.namesOnly = true
            let full = F.error { _ = try PointReader.read(data: Data(text.utf8), name: "e.geojson", options: InputOptions()) }
            let names = F.error { _ = try PointReader.read(data: Data(text.utf8), name: "e.geojson", options: o) }
            #expect(full != nil && names?.message == full?.message, "\(text)")
        }
    }
}
