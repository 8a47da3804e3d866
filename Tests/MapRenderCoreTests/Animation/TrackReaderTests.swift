import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

private func reader(_ csv: String, frames: [Double], columns: TrackColumns = TrackColumns(),
                    chunkSize: Int = 1 << 20) throws -> (TrackReader, TrackReport) {
    var r = TrackReader(frameTimes: frames, columns: columns)
    let report = try r.read(ByteSource(data: Data(csv.utf8), name: "t.csv"), chunkSize: chunkSize)
    return (r, report)
}

@Suite struct AnimationTrackTimeTests {
    @Test func iso8601Forms() {
        let t = 1_079_719_200.0   // 2004-03-19T18:00:00Z
        #expect(TrackTime.parse("2004-03-19T18:00:00Z") == t)
        #expect(TrackTime.parse("2004-03-19T18:00:00+00:00") == t)
        #expect(TrackTime.parse("2004-03-19T18:00:00.000Z") == t)
        #expect(TrackTime.parse("2004-03-19T18:00:00.25Z") == t + 0.25)
        #expect(TrackTime.parse("2004-03-19T18:00:00.123456+00:00").map { abs($0 - t - 0.123456) < 1e-6 } == true)
        #expect(TrackTime.parse(" 2004-03-19 18:00:00Z ") == t)
        #expect(TrackTime.parse("2004-03-19T18:00Z") == t)
        #expect(TrackTime.parse("2004-03-19T18:00:00") == t)             // no offset: UTC
        #expect(TrackTime.parse("2004-03-19T20:00:00+02:00") == t)
        #expect(TrackTime.parse("2004-03-19T13:30:00-0430") == t)
        #expect(TrackTime.parse("2004-03-19") == t - 18 * 3600)
        #expect(TrackTime.parse("1970-01-01T00:00:00Z") == 0)
        #expect(TrackTime.parse("1960-02-29T12:30:15Z") == -310_476_585)
        #expect(TrackTime.parse("2000-02-29T00:00:00Z") == 951_782_400)
    }

    @Test func plainSeconds() {
        #expect(TrackTime.parse("1079719200") == 1_079_719_200)
        #expect(TrackTime.parse("12.5") == 12.5)
        #expect(TrackTime.parse("-3") == -3)
    }

    @Test(arguments: ["", "yesterday", "2004-13-01T00:00:00Z", "2004-02-30", "2003-02-29",
                      "2004-03-19T24:00:00Z", "2004-03-19T18:60:00Z", "2004-03-19T18:00:00ZZ",
                      "2004-03-19T18:00:00.Z", "2004-03-19X18:00", "nan", "inf", "2004-03-19T18:00:00+25:00"])
    func rejects(_ text: String) {
        #expect(TrackTime.parse(text) == nil)
    }

    @Test func timeline() {
        #expect(TrackTimeline.frames(start: 10, end: 11, fps: 4) == [10, 10.25, 10.5, 10.75, 11])
        #expect(TrackTimeline.frames(start: 0, end: 0.99, fps: 2) == [0, 0.5])
        #expect(TrackTimeline.frames(start: 0, end: 1, fps: 0) == [])
        #expect(TrackTimeline.frames(start: 5, end: 1, fps: 10) == [])
        #expect(TrackTimeline.frames(start: 0, end: 100, count: 5) == [0, 25, 50, 75, 100])
        #expect(TrackTimeline.frames(start: 7, end: 100, count: 1) == [7])
        let f = TrackTimeline.frames(start: 1000, end: 2000, fps: 30, duration: 2)
        #expect(f.count == 60 && f.first == 1000 && f.last == 2000)
    }
}

@Suite struct AnimationTrackReaderTests {
    @Test func interpolatesBetweenBracketingSamples() throws {
        let csv = """
        id,time,lat,lon
        a,10,0,10
        a,0,0,0
        b,0,10,170
        b,10,20,-170
        c,4,0,0
        c,6,0,2

        """
        let (r, report) = try reader(csv, frames: [-5, 0, 2.5, 5, 10, 15])
        #expect(report.input.recordsRead == 6 && report.input.pointsRead == 6)
        #expect(r.ids == [.string("a"), .string("b"), .string("c")])
        let f = r.positions(frame: 2, hold: false)      // t = 2.5
        #expect(f.ids == [.string("a"), .string("b")])  // c starts at 4
        #expect(abs(f.lon(0) - 2.5) < 1e-9 && abs(f.lat(0)) < 1e-9)
        #expect(abs(f.lon(1) - 175) < 1e-9)             // the short way across 180°
        let yb = WebMercator.y(lat: 10) + (WebMercator.y(lat: 20) - WebMercator.y(lat: 10)) * 0.25
        #expect(abs(f.y[1] - yb) < 1e-15)               // linear in Mercator
        #expect(f.opacity == [1, 1] && f.scale == [1, 1] && f.rowA.isEmpty)

        let mid = r.positions(frame: 3, hold: false)    // t = 5
        #expect(mid.ids == [.string("a"), .string("b"), .string("c")])
        #expect(abs(abs(mid.lon(1)) - 180) < 1e-9)
        #expect(abs(mid.lon(2) - 1) < 1e-9)
        #expect(mid.item == [0, 1, 2])

        // At a sample's own time: exactly that sample.
        #expect(r.positions(frame: 1, hold: false).x[0] == WebMercator.x(lon: 0))
        #expect(r.positions(frame: 4, hold: false).count == 2)
        // Before the first and after the last sample: absent, unless held.
        #expect(r.positions(frame: 0, hold: false).count == 0)
        #expect(r.positions(frame: 5, hold: false).count == 0)
        let before = r.positions(frame: 0, hold: true)
        #expect(before.count == 3 && abs(before.lon(2) - 0) < 1e-9)
        let after = r.positions(frame: 5, hold: true)
        #expect(after.count == 3 && abs(after.lon(0) - 10) < 1e-9 && abs(after.lon(2) - 2) < 1e-9)
    }

    @Test func idsAreOrderedAndTyped() throws {
        let csv = "id,time,lat,lon\nz,0,0,0\n10,0,0,0\n2,0,0,0\n\"2\",0,0,0\n007,0,0,0\n2.0,0,0,1\n"
        let (r, _) = try reader(csv, frames: [0])
        // "2" in quotes is still the number 2 (as the point reader reads it); 2.0 is 2 again.
        #expect(r.trackCount == 4)
        let f = r.positions(frame: 0, hold: false)
        #expect(f.ids == [.number(2), .number(10), .string("007"), .string("z")])
        #expect(abs(f.lon(0) - 0) < 1e-9)    // of samples at one time, the smaller position wins, whatever the row order
    }

    @Test func skipsInvalidRowsWithLineNumbers() throws {
        let csv = """
        id,time,lat,lon
        a,0,0,0
        a,soon,0,0
        a,5,95,0
        ,5,1,1
        a,6,abc,0
        a,7
        a,2004-03-19T18:00:00Q,0,0
        a,10,0,10

        """
        let (r, report) = try reader(csv, frames: [5])
        #expect(report.input.recordsRead == 8)
        #expect(report.input.pointsRead == 2)
        #expect(report.badTime == 2 && report.badTimeLines == [3, 8])
        #expect(report.missingID == 1 && report.missingIDLines == [5])
        #expect(report.input.skipped[.latitudeOutOfRange] == 1 && report.input.examples[.latitudeOutOfRange] == [4])
        #expect(report.input.skipped[.notANumber] == 1 && report.input.examples[.notANumber] == [6])
        #expect(report.input.skipped[.malformedRow] == 1 && report.input.examples[.malformedRow] == [7])
        #expect(report.skippedTotal == 6)
        #expect(report.warnings() == [
            "t.csv: skipped 1 row: coordinate is not a number (line 6)",
            "t.csv: skipped 1 row: latitude outside -90..90 (line 4)",
            "t.csv: skipped 1 row: malformed row (line 7)",
            "t.csv: skipped 2 rows: time is not ISO 8601 or seconds (lines 3, 8)",
            "t.csv: skipped 1 row: empty id (line 5)",
        ])
        #expect(abs(r.positions(frame: 0, hold: false).lon(0) - 5) < 1e-9)
    }

    @Test func configurableColumnsQuotesAndSemicolons() throws {
        let csv = "\u{FEFF}\"vessel name\";ts;Breite;Länge\r\n\"Boat; \"\"A\"\"\";2004-03-19T18:00:00Z;10,5;20,25\r\n" +
            "\"Boat; \"\"A\"\"\";2004-03-19T19:00:00Z;11,5;21,25\r\n"
        let cols = TrackColumns(id: "Vessel Name", time: "TS", lat: "breite", lon: "länge")
        let t0 = 1_079_719_200.0
        for chunk in [1, 2, 3, 7, 1 << 20] {
            let (r, report) = try reader(csv, frames: [t0 + 1800], columns: cols, chunkSize: chunk)
            #expect(report.skippedTotal == 0 && report.idColumn == "vessel name" && report.timeColumn == "ts")
            let f = r.positions(frame: 0, hold: false)
            #expect(f.ids == [.string("Boat; \"A\"")])
            #expect(abs(f.lon(0) - 20.75) < 1e-9)
        }
    }

    @Test func headerErrors() {
        #expect(throws: MapRenderError(.inputMalformed,
                "t.csv: no time column found; header is: id, lat, lon (use --time-field)")) {
            _ = try reader("id,lat,lon\n1,2,3\n", frames: [0])
        }
        #expect(throws: MapRenderError(.inputMalformed,
                "t.csv: no column named 'when' for the time; header is: id, time, lat, lon")) {
            _ = try reader("id,time,lat,lon\n", frames: [0], columns: TrackColumns(time: "when"))
        }
        #expect(throws: MapRenderError(.inputMalformed, "t.csv: no header row (the file is empty)")) {
            _ = try reader("", frames: [0])
        }
    }

    @Test func sharedTracksInAnyRowOrderGiveTheSameFrames() throws {
        let path = TestPaths.shared("tracks.csv")
        let scan = try TrackReader.scan(path: path)
        #expect(scan.samples == 1001 && scan.ids == 5 && scan.report.skippedTotal == 0)
        let span = try #require(scan.span)
        #expect(span.lowerBound == TrackTime.parse("2004-03-19T18:00:00Z"))
        #expect(span.upperBound == TrackTime.parse("2020-12-18T06:24:24Z"))

        // Frames over the whole span plus frames inside each track, so every track is seen moving.
        var times = TrackTimeline.frames(start: span.lowerBound, end: span.upperBound, count: 50)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        let sampleTimes = lines.map { TrackTime.parse(String($0.split(separator: ",")[1]))! }
        for k in stride(from: 0, to: sampleTimes.count - 1, by: 7) {
            times.append((sampleTimes[k] + sampleTimes[k + 1]) / 2)
        }
        times.sort()

        var inOrder = TrackReader(frameTimes: times)
        try inOrder.read(path: path)
        #expect(inOrder.trackCount == 5)
        #expect(inOrder.samplesRead == 1001)

        var rng = AnimationTestRandom(seed: 7)
        for round in 0..<3 {
            lines.shuffle(using: &rng)
            let shuffled = ([header] + lines).joined(separator: "\n") + "\n"
            var r = TrackReader(frameTimes: times)
            _ = try r.read(ByteSource(data: Data(shuffled.utf8), name: "shuffled.csv"), chunkSize: round == 0 ? 4096 : 1 << 20)
            for k in times.indices {
                for hold in [false, true] {
                    let a = inOrder.positions(frame: k, hold: hold), b = r.positions(frame: k, hold: hold)
                    #expect(a.ids == b.ids && a.x == b.x && a.y == b.y, "frame \(k) differs (hold \(hold))")
                }
            }
        }

        // Catarina at 2004-03-20T03Z: halfway between its 00Z (-26.5, -48.5) and 06Z (-25.3, -48.0) fixes.
        let probe = try #require(TrackTime.parse("2004-03-20T03:00:00Z"))
        var one = TrackReader(frameTimes: [probe])
        try one.read(path: path)
        let f = one.positions(frame: 0, hold: false)
        #expect(f.ids == [.string("storm-AL502004-catarina")])
        #expect(abs(f.lon(0) - (-48.25)) < 1e-9)
        let y = (WebMercator.y(lat: -26.5) + WebMercator.y(lat: -25.3)) / 2
        #expect(abs(f.y[0] - y) < 1e-15)
        #expect(one.positions(frame: 0, hold: true).count == 5)
    }

    /// A million updates for a thousand ids, in scrambled time order: the reader keeps at most
    /// two samples per id and frame, and still finds the right ones.
    @Test func coalescesUpdates() throws {
        let ids = 1000, updatesPerID = 1000, frameCount = 20
        let dir = try animationTempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("updates.csv")

        // Sample u of id i: time (u * 7919) % 1000 seconds (a permutation of 0..<1000), position a
        // function of id and time so the expected answer is known.
        func lon(_ i: Int, _ t: Int) -> Int { (i * 37 + t) % 360 - 180 }
        func lat(_ i: Int, _ t: Int) -> Int { (i + t) % 160 - 80 }
        var out = [UInt8]()
        out.reserveCapacity(ids * updatesPerID * 20)
        out.append(contentsOf: "id,time,lat,lon\n".utf8)
        let digits = (0..<1000).map { Array(String($0).utf8) }
        func put(_ v: Int) {
            if v < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: digits[abs(v)])
        }
        for u in 0..<updatesPerID {
            let t = (u * 7919) % updatesPerID
            for i in 0..<ids {
                out.append(UInt8(ascii: "v")); put(i); out.append(UInt8(ascii: ","))
                put(t); out.append(UInt8(ascii: ","))
                put(lat(i, t)); out.append(UInt8(ascii: ","))
                put(lon(i, t)); out.append(0x0A)
            }
        }
        try Data(out).write(to: file)
        out = []

        // Frames between samples (x.5 s), so every frame interpolates.
        let times = (0..<frameCount).map { Double($0) * 50 + 10.5 }
        var r = TrackReader(frameTimes: times)
        let report = try r.read(path: file.path)
        #expect(report.input.pointsRead == ids * updatesPerID)
        #expect(r.samplesRead == ids * updatesPerID)
        #expect(r.trackCount == ids)
        #expect(r.storedSamples <= ids * frameCount * 2)
        #expect(r.storedSamples == ids * frameCount * 2)   // every slot found a sample

        for k in [0, 7, 19] {
            let f = r.positions(frame: k, hold: false)
            #expect(f.count == ids)
            let t0 = Int(times[k].rounded(.down))
            for i in [0, 1, 499, 999] {
                let j = f.ids.firstIndex(of: .string("v\(i)"))!
                let x0 = WebMercator.x(lon: Double(lon(i, t0))), x1 = WebMercator.x(lon: Double(lon(i, t0 + 1)))
                let y0 = WebMercator.y(lat: Double(lat(i, t0))), y1 = WebMercator.y(lat: Double(lat(i, t0 + 1)))
                let expected = WrappedMercator.interpolate(x0: x0, y0: y0, x1: x1, y1: y1, f: 0.5)
                #expect(abs(f.x[j] - expected.x) < 1e-12 && abs(f.y[j] - expected.y) < 1e-12, "id v\(i) frame \(k)")
            }
        }
    }
}
