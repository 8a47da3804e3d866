import Foundation
import Testing
@testable import MapRenderCore

@Suite struct ClusterGeoJSONTests {
    typealias F = ClusterFixtures

    /// What JavaScript's `JSON.stringify` writes for each number.
    @Test func numbersAsJavaScriptWritesThem() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (1, "1"), (-1, "-1"), (1.5, "1.5"), (0.1 + 0.2, "0.30000000000000004"),
            (123.456, "123.456"), (-79.04411780507252, "-79.04411780507252"), (1e15, "1000000000000000"),
            (1e16, "10000000000000000"), (123456789012345683968.0, "123456789012345680000"), (1e21, "1e+21"),
            (1.5e300, "1.5e+300"), (1.7976931348623157e308, "1.7976931348623157e+308"), (0.000001, "0.000001"),
            (0.0000015, "0.0000015"), (1e-7, "1e-7"), (1.5e-7, "1.5e-7"), (-2.5e-10, "-2.5e-10"),
            (Double.leastNonzeroMagnitude, "5e-324"), (2.2250738585072014e-308, "2.2250738585072014e-308"), (4294967296.5, "4294967296.5"),
            (9007199254740992.0, "9007199254740992"), (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
        ]
        for (value, text) in cases {
            #expect(ClusterGeoJSON.number(value) == text, "\(value)")
        }
    }

    @Test func stringsAsJavaScriptWritesThem() {
        var s = ""
        ClusterGeoJSON.string("a\"b\\c/d\n\t\r\u{08}\u{0C}\u{01}\u{1F}é😀\u{7F}", into: &s)
        #expect(s == "\"a\\\"b\\\\c/d\\n\\t\\r\\b\\f\\u0001\\u001fé😀\u{7F}\"")
    }

    @Test func clusterFeature() throws {
        let item = ClusterItem(id: 164, pointIndex: nil, count: 1550, x: 0.5, y: 0.5, lon: -79.5, lat: 43.25,
                               aggregates: ["sum_v": 12.5, "max_v": 3])
        var s = ""
        ClusterGeoJSON.feature(item, points: PointSet(), aggregates: [.max(field: "v"), .sum(field: "v")], into: &s)
        #expect(s == #"{"type":"Feature","id":164,"properties":{"max_v":3,"sum_v":12.5,"cluster":true,"cluster_id":164,"point_count":1550,"point_count_abbreviated":"1.6k"},"geometry":{"type":"Point","coordinates":[-79.5,43.25]}}"#)
        var small = ""
        ClusterGeoJSON.feature(ClusterItem(id: 40, pointIndex: nil, count: 999, x: 0, y: 0, lon: 1e-7, lat: 0),
                               points: PointSet(), into: &small)
        #expect(small.contains(#""point_count":999,"point_count_abbreviated":999}"#))
        #expect(small.contains(#""coordinates":[1e-7,0]"#))
    }

    @Test func unclusteredPointIsItsOriginalFeature() throws {
        var p = PointSet()
        p.lon = [8.55, -0.1]
        p.lat = [47.36667, 51.5]
        p.ids = [.number(3040051), .missing]
        let name = p.properties.addColumn("name"), flag = p.properties.addColumn("capital")
        let tags = p.properties.addColumn("tags"), note = p.properties.addColumn("note")
        p.properties.appendRow([(name, .string("Zürich \"ZH\"")), (flag, .bool(false)), (tags, .json(#"["a",{"b":1}]"#)),
                                (note, .null)])
        p.properties.appendRow([(name, .string("London")), (flag, .bool(true))])
        let items = ClusterIndex(points: p).clusters(zoom: 17)
        let text = ClusterGeoJSON.featureCollection(items: items, points: p)
        #expect(text == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":3040051,"properties":{"name":"Zürich \"ZH\"","capital":false,"tags":["a",{"b":1}],"note":null},"geometry":{"type":"Point","coordinates":[8.55,47.36667]}},{"type":"Feature","properties":{"name":"London","capital":true},"geometry":{"type":"Point","coordinates":[-0.1,51.5]}}]}"#)
        var s = ""
        p.ids = [.string("zh"), .string("ldn")]
        ClusterGeoJSON.feature(items[1], points: p, into: &s)
        #expect(s.hasPrefix(#"{"type":"Feature","id":"ldn","properties":"#))
    }

    @Test func placesAtZoomZeroIsValidGeoJSONLikeSuperclusters() throws {
        let index = try F.placesIndex(aggregates: [.sum(field: "scalerank")])
        let items = index.clusters(zoom: 0)
        let places = try F.places().points
        let text = ClusterGeoJSON.featureCollection(items: items, points: places, aggregates: index.aggregates)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count == items.count)
        for (feature, item) in zip(features, items) {
            let properties = try #require(feature["properties"] as? [String: Any])
            let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            // (Foundation's JSON reader can miss the last bit of a number; the writing is checked above.)
            #expect(abs(coordinates[0] - item.lon) < 1e-12 && abs(coordinates[1] - item.lat) < 1e-12)
            if item.isCluster {
                #expect(feature["id"] as? Int == item.id && properties["cluster_id"] as? Int == item.id)
                #expect(properties["point_count"] as? Int == item.count && properties["cluster"] as? Bool == true)
                #expect(properties["sum_scalerank"] as? Double == item.aggregates["sum_scalerank"])
            } else {
                #expect(properties["name"] as? String == places.properties.value("name", row: item.pointIndex!).displayText)
                #expect(properties["cluster"] == nil)
            }
        }
        #expect(items.map(\.count).reduce(0, +) == 162)
    }
}
