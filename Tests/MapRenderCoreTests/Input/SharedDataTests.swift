import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Facts from `shared/data/README.md`, checked against what the readers make of the vendored copies.
@Suite("Shared datasets")
struct InputSharedDataTests {
    typealias F = InputFixtures

    @Test func everyDataFileParses() throws {
        let names = TestPaths.vendored.keys.sorted()
        #expect(names.count == 7)
        for name in names {
            let r = try PointReader.read(path: F.shared(name), options: InputOptions())
            #expect(r.report.source == F.shared(name))
            #expect(r.report.format == (name.hasSuffix(".csv") ? "csv" : "geojson"), "\(name)")
            #expect(r.points.properties.rowCount == r.points.count, "\(name)")
            if name.hasSuffix(".geojson") {
                _ = try ShapeReader.read(path: F.shared(name))
            } else {
                #expect(r.report.skippedTotal == 0, "\(name)")
                #expect(r.report.pointsRead == r.report.recordsRead, "\(name)")
            }
        }
    }

    @Test func worldCities() throws {
        let r = try PointReader.read(path: F.shared("world_cities_15000.csv"), options: InputOptions())
        let p = r.points
        #expect(p.count == 34006 && r.report.recordsRead == 34006 && r.report.skippedTotal == 0)
        #expect(r.report.latitudeColumn == "lat" && r.report.longitudeColumn == "lon")
        #expect(p.properties.names == ["name", "country", "population"])
        #expect(p.ids.count == 34006)
        #expect(Set(p.ids).count == 34006)   // ids are unique
        #expect(p.ids.first == .number(3040051))

        let names = p.properties.columns[p.properties.columnIndex("name")!]
        let withComma = names.compactMap { v -> String? in
            if case .string(let s) = v, s.contains(",") { return s }
            return nil
        }
        #expect(withComma == ["Mianzhu, Deyang, Sichuan", "Sant Pere, Santa Caterina i La Ribera", "Misato, Saitama"])
        let nonASCII = names.filter { v in
            if case .string(let s) = v { return s.unicodeScalars.contains { !$0.isASCII } }
            return false
        }
        #expect(nonASCII.count == 7047)

        let zurich = try #require(names.firstIndex(of: .string("Zürich")))
        #expect(p.lat[zurich] == 47.36667 && p.lon[zurich] == 8.55)
        #expect(p.properties.value("country", row: zurich) == .string("CH"))
        #expect(p.properties.value("population", row: zurich) == .number(415367))
        #expect(p.lat.min() == -54.81084 && p.lat.max() == 78.22334)
        #expect(p.lon.min()! > -176.3 && p.lon.max()! < 179.5)
        let zeroPopulation = p.properties.columns[p.properties.columnIndex("population")!].filter { $0 == .number(0) }
        #expect(zeroPopulation.count == 3)
    }

    @Test func worldCitiesInTinyChunksIsIdentical() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: F.shared("world_cities_15000.csv")))
        let whole = try PointReader.read(data: data, name: "w.csv", options: InputOptions())
        for size in [3, 1000, 65537] {
            let r = try PointReader.read(data: data, name: "w.csv", options: InputOptions(), chunkSize: size)
            #expect(r.points.lat == whole.points.lat && r.points.lon == whole.points.lon)
            #expect(r.points.ids == whole.points.ids)
            #expect(r.points.properties.columns == whole.points.properties.columns)
        }
    }

    @Test func airports() throws {
        let r = try PointReader.read(path: F.shared("airports_us.csv"), options: InputOptions())
        #expect(r.points.count == 3376)
        #expect(r.report.latitudeColumn == "latitude" && r.report.longitudeColumn == "longitude")
        #expect(r.points.ids.isEmpty)
        #expect(r.points.properties.value("iata", row: 0) == .string("00M"))   // not a number
        #expect(r.points.lat[0] == 31.95376472 && r.points.lon[0] == -89.23450472)
        let countries = r.points.properties.columns[r.points.properties.columnIndex("country")!]
        #expect(countries.filter { $0 == .string("USA") }.count == 3372)
        #expect(abs(r.points.lon.min()! - -176.6) < 0.05 && abs(r.points.lon.max()! - 145.6) < 0.05)
        #expect(Set(zip(r.points.lat, r.points.lon).map { "\($0),\($1)" }).count == 3376)
    }

    @Test func populatedPlaces() throws {
        let r = try PointReader.read(path: F.shared("populated_places_110m.geojson"), options: InputOptions())
        #expect(r.points.count == 243 && r.report.recordsRead == 243 && r.report.skippedTotal == 0)
        #expect(Array(r.points.ids) == (1...243).map { PropertyValue.number(Double($0)) })
        #expect(r.points.properties.names == ["name"])
        let saoTome = try #require(r.points.properties.columns[0].firstIndex(of: .string("São Tomé")))
        #expect(r.points.ids[saoTome] == .number(136))
        #expect(r.points.lon[saoTome] == 6.729649806269851 && r.points.lat[saoTome] == 0.3374664069826239)
        #expect(r.points.properties.columns[0].contains(.string("København")))
        // Restored from the source's "Chi?in?u" and "?saka" (samples/README.md); no name keeps a question mark.
        #expect(r.points.properties.columns[0][73] == .string("Chișinău"))
        #expect(r.points.properties.columns[0][200] == .string("Ōsaka"))
        #expect(!r.points.properties.columns[0].contains { $0.displayText?.contains("?") == true })
    }

    @Test func countries() throws {
        let path = F.shared("ne_110m_admin_0_countries.geojson")
        let r = try PointReader.read(path: path, options: InputOptions())
        #expect(r.points.count == 0)
        #expect(r.report.recordsRead == 177)
        #expect(r.report.skippedGeometries == ["Polygon": 148, "MultiPolygon": 29])
        #expect(r.report.skipped == [.unsupportedGeometry: 177])

        let shapes = try ShapeReader.read(path: path)
        #expect(shapes.shapeCount == 288)                 // 148 polygons + 140 MultiPolygon parts
        #expect(shapes.kinds.allSatisfy { $0 == .polygon })
        #expect(shapes.ringStart.count - 1 == 289)
        #expect(Set(shapes.feature) == Set(0..<177))
        let lats = stride(from: 1, to: shapes.coords.count, by: 2).map { shapes.coords[$0] }
        #expect(lats.min() == -90)                        // Antarctica reaches the pole
        #expect(shapes.coords.enumerated().allSatisfy { $0.offset % 2 == 1 || abs($0.element) <= 180 })
    }

    @Test func lineBasemaps() throws {
        let coast = try ShapeReader.read(path: F.shared("ne_110m_coastline.geojson"))
        #expect(coast.shapeCount == 134 && coast.kinds.allSatisfy { $0 == .line })
        let borders = try ShapeReader.read(path: F.shared("ne_110m_admin_0_boundary_lines_land.geojson"))
        #expect(borders.shapeCount == 331 && borders.kinds.allSatisfy { $0 == .line })
        #expect(borders.ringStart.count - 1 > 331)       // the 2 MultiLineStrings have several parts
        let points = try PointReader.read(path: F.shared("ne_110m_coastline.geojson"), options: InputOptions())
        #expect(points.report.skippedGeometries == ["LineString": 134])
    }

    @Test func tracks() throws {
        let r = try PointReader.read(path: F.shared("tracks.csv"), options: InputOptions())
        #expect(r.points.count == 1001 && r.report.recordsRead == 1001)
        var counts: [PropertyValue: Int] = [:]
        for id in r.points.ids { counts[id, default: 0] += 1 }
        #expect(counts == [
            .string("storm-AL502004-catarina"): 37, .string("storm-CP052006"): 51,
            .string("gps-cerknica-2010-08-05"): 296, .string("gps-korita-zbevnica-2010-10-03"): 513,
            .string("gps-visnjan-car-2020-12-18"): 104,
        ])
        #expect(r.points.properties.names == ["time", "source"])
        #expect(r.points.properties.value("time", row: 0) == .string("2004-03-19T18:00:00Z"))
        #expect(r.points.lat[0] == -27 && r.points.lon[0] == -49)
    }
}
