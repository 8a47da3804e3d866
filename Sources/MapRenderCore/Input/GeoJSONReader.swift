import Foundation

/// GeoJSON → points: Point and MultiPoint geometries (also inside GeometryCollections) with the
/// feature's id and properties; every other geometry is counted in the report and skipped.
enum GeoJSONReader {
    static func read(bytes: [UInt8], name: String, options: InputOptions) throws -> LoadedPoints {
        let sink = GeoJSONPointSink(name: name, options: options)
        try JSONScanner.scan(bytes, name: ByteSource.displayName(name), invalidUTF8: sink.invalidUTF8) { scanner in
            var walker = GeoJSONWalker(scanner: scanner, sink: sink)
            try walker.run()
        }
        return sink.finish()
    }

    /// The same from a mapped file: its pages are given back as the walk passes them, so a large
    /// file never needs its whole size in memory besides the points.
    static func read(mapped file: ByteSource.MappedFile, name: String, options: InputOptions) throws -> LoadedPoints {
        let sink = GeoJSONPointSink(name: name, options: options)
        try JSONScanner.scan(base: file.base, count: file.count, name: ByteSource.displayName(name),
                             invalidUTF8: sink.invalidUTF8, release: { file.release(before: $0) }) { scanner in
            var walker = GeoJSONWalker(scanner: scanner, sink: sink)
            try walker.run()
        }
        return sink.finish()
    }
}

/// Collects one feature's points, id and properties, then appends them to the flat `PointSet`.
///
/// Stored properties are `@exclusivity(unchecked)`: a sink is used by one thread, and the runtime
/// access checks were a sixth of the parse time.
final class GeoJSONPointSink: GeoJSONSink {
    private let options: InputOptions
    @exclusivity(unchecked) private var report: InputReport
    @exclusivity(unchecked) private var points = PointSet()
    /// Lines and polygons (`options.keepShapes`), and the current feature's, added at its end.
    @exclusivity(unchecked) private var shapes = ShapeSet()
    @exclusivity(unchecked) private var pendingShapes: [(ShapeKind, [[Double]])] = []
    let wantsProperties: Bool
    /// The kept property names and the id field as UTF-8, so that other keys are skipped without
    /// making a String of them (nil: every property is kept).
    private let keepBytes: [[UInt8]]?

    // The current feature, reused from one feature to the next.
    @exclusivity(unchecked) private var lon: [Double] = []
    @exclusivity(unchecked) private var lat: [Double] = []
    @exclusivity(unchecked) private var id = PropertyValue.missing
    @exclusivity(unchecked) private var properties: [(String, PropertyValue)] = []
    @exclusivity(unchecked) private var row: [(Int, PropertyValue)] = []
    @exclusivity(unchecked) private var skipsAtFeatureStart = 0
    /// The previous feature's property keys by position (raw bytes, name, column): features of
    /// one file mostly repeat the same keys, which then cost a byte comparison instead of a new
    /// String and a hash lookup.
    @exclusivity(unchecked) private var keyBytes: [[UInt8]] = []
    @exclusivity(unchecked) private var keyNames: [String] = []
    @exclusivity(unchecked) private var keyColumns: [Int] = []
    @exclusivity(unchecked) private var skips = 0
    /// Whether any feature so far had an id (`points.ids` stays empty until one does).
    @exclusivity(unchecked) private var hasIDs = false
    /// `options.namesOnly`: property values are passed over, ids only counted.
    private let namesOnly: Bool
    @exclusivity(unchecked) private var pointsWithIDs = 0
    /// Text with invalid UTF-8 bytes, counted by the scanner with the feature it was in.
    let invalidUTF8 = InvalidUTF8Tally()

    init(name: String, options: InputOptions) {
        self.options = options
        report = InputReport(source: name)
        report.format = "geojson"
        wantsProperties = options.keepProperties != [] || options.idField != nil
        namesOnly = options.namesOnly
        keepBytes = options.keepProperties.map { keep in
            (keep.sorted() + (options.idField.map { [$0] } ?? [])).map { Array($0.utf8) }
        }
    }

    func finish() -> LoadedPoints {
        report.pointsRead = points.count
        report.invalidUTF8 = invalidUTF8.count
        report.firstInvalidUTF8 = invalidUTF8.first
        if namesOnly {
            let names = LoadedPoints.NamesOnly(propertyNames: points.properties.names, pointsWithIDs: pointsWithIDs)
            points.properties = PropertyTable()
            return LoadedPoints(points: points, report: report, namesOnly: names)
        }
        return LoadedPoints(points: points, shapes: shapes, report: report)
    }

    var invalidUTF8Tally: InvalidUTF8Tally? { invalidUTF8 }

    func makePartSink() -> GeoJSONPointSink? { GeoJSONPointSink(name: report.source, options: options) }

    func absorb(_ part: GeoJSONPointSink, featureOffset: Int) {
        report.append(part.report, lineOffset: featureOffset)
        if invalidUTF8.count == 0, let first = part.invalidUTF8.first { invalidUTF8.first = first + featureOffset }
        invalidUTF8.count += part.invalidUTF8.count
        pointsWithIDs += part.pointsWithIDs
        // The ids as `endFeature` keeps them: none until the first, `.missing` before it.
        if part.hasIDs {
            if !hasIDs { points.ids = IDColumn(repeating: .missing, count: points.count) }
            hasIDs = true
            points.ids.append(contentsOf: part.points.ids)
        } else if hasIDs {
            points.ids.append(contentsOf: repeatElement(PropertyValue.missing, count: part.points.count))
        }
        points.lon.append(contentsOf: part.points.lon)
        points.lat.append(contentsOf: part.points.lat)
        points.properties.append(merging: part.points.properties)
        shapes.append(contentsOf: part.shapes, featureOffset: featureOffset)
    }

    private func skip(_ reason: SkipReason, _ feature: Int) {
        report.skip(reason, at: feature)
        skips += 1
    }

    func beginFeature(_ index: Int) {
        // removeLast, not removeAll(keepingCapacity:): a feature mostly has one point, and
        // removeAll goes through the generic replaceSubrange on every feature.
        while !lon.isEmpty { lon.removeLast() }
        while !lat.isEmpty { lat.removeLast() }
        properties.removeAll(keepingCapacity: true)
        if !pendingShapes.isEmpty { pendingShapes.removeAll() }
        id = .missing
        skipsAtFeatureStart = skips
        invalidUTF8.feature = index
    }

    func featureID(_ id: PropertyValue) {
        if options.idField == nil { self.id = id }
    }

    func properties(_ s: inout JSONScanner) throws {
        try s.enterObject()
        var first = true
        // The closures below capture the base pointer, not the scanner (copying the scanner
        // into a closure context cost two copies of it per feature).
        let base = s.base
        func equal(_ raw: JSONScanner.RawString, _ k: [UInt8]) -> Bool {
            !raw.hasEscapes && raw.end - raw.start == k.count
                && k.withUnsafeBufferPointer { k.isEmpty || memcmp(base + raw.start, $0.baseAddress!, k.count) == 0 }
        }
        while let raw = try s.nextMember(&first) {
            if let keep = keepBytes, !raw.hasEscapes, !keep.contains(where: { equal(raw, $0) }) {
                try s.skipValue()       // neither kept nor the id field
                continue
            }
            let key: String
            let k = properties.count
            if k < keyBytes.count, equal(raw, keyBytes[k]) {
                key = keyNames[k]
            } else {
                key = s.decode(raw)
                if !raw.hasEscapes {
                    let bytes = Array(UnsafeBufferPointer(start: s.base + raw.start, count: raw.end - raw.start))
                    if k < keyBytes.count {
                        keyBytes[k] = bytes; keyNames[k] = key; keyColumns[k] = -1
                    } else if k == keyBytes.count {
                        keyBytes.append(bytes); keyNames.append(key); keyColumns.append(-1)
                    }
                }
            }
            if namesOnly {
                let isNull = try s.skipPropertyValue()
                if let idField = options.idField, key == idField, !isNull { id = .null }   // an id, not kept
                if options.keepProperties?.contains(key) ?? true { properties.append((key, .missing)) }
            } else if let idField = options.idField, key == idField {
                let value = try s.readPropertyValue()
                if case .null = value {} else { id = value }
                if options.keepProperties?.contains(key) ?? true { properties.append((key, value)) }
            } else if let keep = options.keepProperties, !keep.contains(key) {
                try s.skipValue()
            } else {
                properties.append((key, try s.readPropertyValue()))
            }
        }
    }

    func geometry(_ type: GeoJSONType, hasCoordinates: Bool, _ s: inout JSONScanner, feature: Int) throws {
        switch type {
        case .geometryCollection:
            // Only reached when the collection has no `geometries` array.
            skip(.malformedRow, feature)
            if hasCoordinates { try s.skipValue() }
        case .point, .multiPoint:
            guard hasCoordinates else {
                skip(.malformedRow, feature)
                return
            }
            if type == .point {
                try readPosition(&s, feature: feature)
            } else if s.peek() == UInt8(ascii: "[") {
                try s.enterArray()
                var first = true
                while try s.nextElement(&first) { try readPosition(&s, feature: feature) }
            } else {
                try s.skipValue()
                skip(.malformedRow, feature)
            }
        case .lineString where options.keepShapes, .multiLineString where options.keepShapes,
             .polygon where options.keepShapes, .multiPolygon where options.keepShapes:
            guard hasCoordinates else {
                skip(.emptyCoordinate, feature)
                return
            }
            var reader = ShapeCoordinates(strict: false, wrapLongitude: options.wrapLongitude)
            let parts = try reader.read(type, &s) ?? []
            if let problem = reader.problem {
                skip(problem, feature)
            } else {
                pendingShapes += parts
            }
        default:
            report.skippedGeometries[type.name, default: 0] += 1
            skip(.unsupportedGeometry, feature)
            if hasCoordinates { try s.skipValue() }
        }
    }

    /// One `[lon, lat, ...]` position: a point, or a skip with the reason.
    private func readPosition(_ s: inout JSONScanner, feature: Int) throws {
        guard s.peek() == UInt8(ascii: "[") else {
            try s.skipValue()
            skip(.malformedRow, feature)
            return
        }
        try s.enterArray()
        var first = true
        var n = 0
        var x = CoordinateParse.empty
        var y = CoordinateParse.empty
        while try s.nextElement(&first) {
            let c: CoordinateParse
            switch s.peekKind() {
            case .number:
                let d = try s.readNumber()
                c = d.isFinite ? .value(d) : .nonFinite
            case .null:
                try s.readNull()
                c = .empty
            case .string:
                let raw = try s.readRawString()
                c = raw.start == raw.end ? .empty : .notANumber
            default:
                try s.skipValue()
                c = .notANumber
            }
            if n == 0 { x = c } else if n == 1 { y = c }
            n += 1
        }
        guard n >= 2 else {
            skip(.malformedRow, feature)
            return
        }
        switch CoordinateCheck.check(lat: y, lon: x, wrapLongitude: options.wrapLongitude) {
        case .skip(let reason):
            skip(reason, feature)
        case .point(let la, let lo):
            lat.append(la)
            lon.append(lo)
        }
    }

    func nullGeometry(feature: Int) {
        report.skippedGeometries["null", default: 0] += 1
        skip(.nullGeometry, feature)
    }

    func malformedGeometry(feature: Int) {
        skip(.malformedRow, feature)
    }

    func duplicateMember(_ key: String, feature: Int) {
        if key == "geometry" {
            while !lon.isEmpty { lon.removeLast() }
            while !lat.isEmpty { lat.removeLast() }
            if !pendingShapes.isEmpty { pendingShapes.removeAll() }
        } else {
            properties.removeAll(keepingCapacity: true)
            if options.idField != nil { id = .missing }
        }
        report.duplicateMembers += 1
        if report.firstDuplicateMember == nil { report.firstDuplicateMember = .init(feature: feature, key: key) }
    }

    func malformedFeature(_ index: Int) {
        report.recordsRead += 1
        skip(.malformedRow, index)
    }

    func endFeature(_ index: Int) {
        report.recordsRead += 1
        if !pendingShapes.isEmpty { endShapes(index) }
        if lon.isEmpty {
            // e.g. an empty MultiPoint: nothing to draw and nothing else said why.
            if skips == skipsAtFeatureStart && pendingShapes.isEmpty { skip(.emptyCoordinate, index) }
            return
        }
        if namesOnly {
            if case .missing = id {} else { pointsWithIDs += lon.count }
            for (k, (key, _)) in properties.enumerated() {
                // Only the names: the columns stay empty (no row is appended).
                if k < keyNames.count, keyColumns[k] >= 0, keyNames[k] == key { continue }
                let column = points.properties.addColumn(key)
                if k < keyNames.count, keyNames[k] == key { keyColumns[k] = column }
            }
            points.lon.append(contentsOf: lon)
            points.lat.append(contentsOf: lat)
            return
        }
        if case .missing = id {} else if !hasIDs && options.keepIDs {
            // The first id: earlier points get `.missing`.
            hasIDs = true
            points.ids = IDColumn(repeating: .missing, count: points.count)
        }
        row.removeAll(keepingCapacity: true)
        for (k, (key, value)) in properties.enumerated() {
            let column: Int
            if k < keyNames.count, keyColumns[k] >= 0, keyNames[k] == key {
                column = keyColumns[k]
            } else {
                column = points.properties.addColumn(key)
                if k < keyNames.count, keyNames[k] == key { keyColumns[k] = column }
            }
            row.append((column, value))
        }
        for k in lon.indices {
            points.lon.append(lon[k])
            points.lat.append(lat[k])
            if hasIDs { points.ids.append(id) }
            if row.isEmpty {
                points.properties.appendEmptyRow()
            } else {
                points.properties.appendRow(row)
            }
        }
    }

    /// The feature's lines and polygons, with one property row for all of them (the same
    /// properties its points have).
    private func endShapes(_ index: Int) {
        let row = shapes.properties.rowCount
        shapes.properties.appendRow(properties.map { (shapes.properties.addColumn($0.0), $0.1) })
        for (kind, rings) in pendingShapes { shapes.add(kind: kind, rings: rings, feature: index, row: row) }
        report.shapesRead += pendingShapes.count
    }
}
