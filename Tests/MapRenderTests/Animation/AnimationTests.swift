import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import MapRenderCairo
@testable import MapRender

/// Animations end to end, on keyframes derived from the shared populated places and on the
/// shared tracks.
@Suite struct AnimationTests {
    typealias Data_ = AnimationTestData

    // MARK: Keyframes

    @Test func keyframesAreDiffedByIDEndToEnd() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Data_.loadPlaces()
        let b = Data_.changed(a)
        let paths = try Data_.write([a, b], to: dir)
        var r = Data_.request(.keyframes(paths))
        r.base.clustering = nil
        r.base.layout.labelField = "name"
        r.framesPerTransition = 4
        let plans = try AnimationRenderer.plans(r)
        #expect(plans.count == 5)

        let inserted = Set(1000..<1005)
        let deleted = Set(a.map(\.id).filter { $0 % 10 == 0 })
        let moved = Set(a.map(\.id).filter { $0 % 10 != 0 && $0 % 3 == 0 })
        func ids(_ p: FramePlan) -> [Int] {
            p.points.ids.map { if case .number(let d) = $0 { return Int(d) } else { return -1 } }
        }
        func opacity(_ p: FramePlan, _ id: Int) -> Double? {
            ids(p).firstIndex(of: id).map { p.opacity[$0] }
        }
        // First frame: exactly A; last frame: exactly B.
        #expect(Set(ids(plans[0])) == Set(a.map(\.id)))
        #expect(Set(ids(plans[4])) == Set(b.map(\.id)))
        #expect(plans[0].opacity.allSatisfy { $0 == 1 })
        #expect(plans[4].opacity.allSatisfy { $0 == 1 })
        // Inserted fade and grow in; deleted fade out; the others stay opaque.
        let mid = plans[2]
        for id in inserted {
            let i = ids(mid).firstIndex(of: id)!
            #expect(mid.opacity[i] > 0 && mid.opacity[i] < 1)
            #expect(mid.scale[i] > 0 && mid.scale[i] < 1)
        }
        for id in deleted {
            let o1 = opacity(plans[1], id)!, o3 = opacity(plans[3], id)!
            #expect(o1 > o3 && o3 > 0)
        }
        // Moved points are between their two positions; unchanged ones where they were.
        for f in a where moved.contains(f.id) {
            let i = ids(mid).firstIndex(of: f.id)!
            #expect(mid.opacity[i] == 1)
            let lat = WebMercator.lat(y: mid.shownY[i])
            #expect(lat < f.lat && lat > max(-80, min(80, f.lat - 10)))
        }
        for f in a where f.id % 10 != 0 && f.id % 3 != 0 {
            let i = ids(mid).firstIndex(of: f.id)!
            #expect(abs(WebMercator.lat(y: mid.shownY[i]) - f.lat) < 1e-9)
        }
        // Labels read the properties of the frame's rows (B's for inserted points).
        #expect(mid.points.properties.value("name", row: ids(mid).firstIndex(of: 1002)!) == .string("New 2"))
    }

    @Test func framesAreNumberedAndTheSameSize() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Data_.loadPlaces()
        let b = Data_.changed(a)
        let c = Data_.changed(b, newIDs: 2000)
        let paths = try Data_.write([a, b, c], to: dir)
        let folder = dir.appendingPathComponent("out/frames").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Left by an earlier, longer run (listed in its .maprender-frames): removed. Another name: kept.
        _ = FileManager.default.createFile(atPath: folder + "/frame-00012.png", contents: Data([1]))
        _ = FileManager.default.createFile(atPath: folder + "/.maprender-frames", contents: Data("frame-00012.png\n".utf8))
        _ = FileManager.default.createFile(atPath: folder + "/notes.txt", contents: Data([1]))
        var r = Data_.request(.keyframes(paths), output: .frames(folder: folder, format: .png))
        r.framesPerTransition = 4
        let result = try AnimationRenderer.render(r)
        // 3 keyframes, 4 frames per transition: (3 − 1) · 4 + 1.
        #expect(result.frames == 9)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == [".maprender-frames"] + (1...9).map { String(format: "frame-%05d.png", $0) } + ["maprender-frames.json", "notes.txt"])
        #expect(result.outputs.map { URL(fileURLWithPath: $0).lastPathComponent } == (1...9).map { String(format: "frame-%05d.png", $0) })
        for name in names where name.hasSuffix(".png") {
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            #expect(Data_.pngSize(data) == (320, 200))
        }
        #expect(result.transitions?.map(\.inserted) == [5, 5])
        #expect(result.transitions?.first?.deleted == a.filter { $0.id % 10 == 0 }.count)
    }

    @Test func framesAreByteIdenticalForAnyNumberOfJobs() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Data_.placesKeyframes(in: dir)
        var r = Data_.request(.keyframes(paths))
        r.base.basemaps = [Data_.countries]
        r.base.layout.labelField = "name"
        r.framesPerTransition = 5
        func frames(jobs: Int) throws -> [Data] {
            var req = r
            req.jobs = jobs
            var out: [Data] = []
            try AnimationRenderer.render(req, onFrame: { k, data in
                #expect(k == out.count)
                out.append(data)
            })
            return out
        }
        let one = try frames(jobs: 1)
        let four = try frames(jobs: 4)
        #expect(one.count == 6)
        #expect(one == four)
        #expect(Set(one).count > 1)
    }

    @Test func apngHasOneFrameControlPerFrame() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Data_.placesKeyframes(in: dir)
        let path = dir.appendingPathComponent("anim.png").path
        var r = Data_.request(.keyframes(paths), output: .apng(path))
        r.framesPerTransition = 6
        r.fps = 12
        let result = try AnimationRenderer.render(r)
        #expect(result.frames == 7)
        let chunks = Data_.chunks(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(chunks.map(\.0).prefix(2) == ["IHDR", "acTL"])
        #expect(chunks.last?.0 == "IEND")
        let actl = chunks[1].1
        #expect(Data_.u32(actl, 0) == 7)        // num_frames
        #expect(Data_.u32(actl, 4) == 0)        // loop forever
        let fctl = chunks.filter { $0.0 == "fcTL" }.map(\.1)
        #expect(fctl.count == 7)
        for f in fctl {
            #expect(Data_.u32(f, 4) == 320 && Data_.u32(f, 8) == 200)
            #expect(f[20] == 0 && f[21] == 1 && f[22] == 0 && f[23] == 12)   // delay 1/12 s
        }
        // One sequence for fcTL and fdAT, from 0, without gaps.
        let sequence = chunks.filter { $0.0 == "fcTL" || $0.0 == "fdAT" }.map { Data_.u32($0.1, 0) }
        #expect(sequence == Array(0..<sequence.count))
        // Frame 0 is the default image (IDAT), the others fdAT.
        let firstIDAT = chunks.firstIndex { $0.0 == "IDAT" }!
        let firstFCTL = chunks.firstIndex { $0.0 == "fcTL" }!
        #expect(firstFCTL < firstIDAT)
        #expect(chunks.contains { $0.0 == "fdAT" })
    }

    @Test func animatedSVGAnimatesEveryPoint() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Data_.placesKeyframes(in: dir)
        let path = dir.appendingPathComponent("anim.svg").path
        var r = Data_.request(.keyframes(paths), output: .animatedSVG(path))
        r.base.clustering = nil
        r.framesPerTransition = 4
        try AnimationRenderer.render(r)
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("<g id=\"maprender-animation\""))
        // Every id of A and B: one group each, with 5 translate values (small dots have two: their
        // outline pass before every fill, as in the still map).
        let groups = svg.components(separatedBy: "type=\"translate\" values=\"").dropFirst()
        #expect(groups.count == (r.base.style.marker.size <= 8 && r.base.style.marker.shape != .pin ? 2 : 1) * 248)
        let values = groups.first!.prefix { $0 != "\"" }.split(separator: ";")
        #expect(values.count == 5)
        // 5 frames at 4 fps (a transition lasts 1 s): 1 s from the first frame to the last.
        #expect(svg.contains("dur=\"1s\" repeatCount=\"indefinite\""))
    }

    @Test func animatedSVGCarriesBubbleCountsAndLabels() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Data_.placesKeyframes(in: dir)
        let path = dir.appendingPathComponent("anim.svg").path
        var r = Data_.request(.keyframes(paths), output: .animatedSVG(path))
        r.base.layout.labelField = "name"
        r.framesPerTransition = 4
        try AnimationRenderer.render(r)
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        let animation = svg.components(separatedBy: "<g id=\"maprender-animation\"").last!
        // Clustered world: bubbles with their counts as text, and labels that follow their markers.
        #expect(animation.contains("text-anchor=\"middle\" font-family="))
        #expect(animation.contains("paint-order=\"stroke\""))
        let texts = animation.components(separatedBy: "<text ").count - 1
        #expect(texts > 10)
        // Well-formed XML (names with & or < are escaped).
        #expect(XMLParser(data: Data(svg.utf8)).parse())
    }

    // MARK: Continuity

    /// Between two consecutive frames a point's shown position moves at most as far as points
    /// move themselves plus what a cluster transition adds per frame; presence and bubble radii
    /// change by at most 1 / (frames the effect lasts): 6 frames (a quarter of the transition),
    /// fewer near the keyframe that cuts it; new bubbles start small. Across real merges and
    /// splits: the places clustered at world zoom while a third of them move 25°.
    @Test func noMarkerJumpsAcrossClusterMergesAndSplits() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Data_.placesKeyframes(in: dir)
        var r = Data_.request(.keyframes(paths))
        r.base.width = 640
        r.base.height = 400
        r.framesPerTransition = 24
        r.clusterTransition = 0.25
        let plans = try AnimationRenderer.plans(r)
        let v = plans[0].viewport
        let ws = v.worldSize
        // The cluster radius in pixels at this zoom (40 at extent 512, at the floored zoom).
        let radiusPx = 40 * pow(2, v.zoom - v.zoom.rounded(.down))

        var changes = 0, worstExcess = 0.0, naiveJump = 0.0
        for k in 1..<plans.count {
            // Effects begun by frame k - 1 last 6 frames, or until the keyframe (frame 24).
            let m = min(6.0, Double(plans.count - k))
            // A transition starts from where the point was shown; its target is at most about two
            // cluster radii away (a point and its bubble's centre, or two neighbouring bubbles).
            let allowance = 3 * radiusPx / m
            let p0 = plans[k - 1], p1 = plans[k]
            var before: [Int: Int] = [:]
            for (i, key) in p0.keys.enumerated() { before[key] = i }
            // How far any point moves on its own between the two frames (px).
            var ownStep: [Int: Double] = [:]
            var maxOwnStep = 0.0
            for (j, key) in p1.keys.enumerated() {
                guard let i = before[key] else { continue }
                let dx = AnimationMath.shortDelta(from: WebMercator.x(lon: p0.points.lon[i]),
                                                  to: WebMercator.x(lon: p1.points.lon[j])) * ws
                let dy = (WebMercator.y(lat: p1.points.lat[j]) - WebMercator.y(lat: p0.points.lat[i])) * ws
                ownStep[key] = hypot(dx, dy)
                maxOwnStep = max(maxOwnStep, ownStep[key]!)
            }
            for (j, key) in p1.keys.enumerated() {
                guard let i = before[key] else { continue }
                let step = hypot(p1.shownX[j] - p0.shownX[i], p1.shownY[j] - p0.shownY[i]) * ws
                // Inside a bubble a point goes where its bubble goes: its members' motion.
                let own = p0.presence[i] == 0 || p1.presence[j] == 0 ? maxOwnStep : ownStep[key]!
                worstExcess = max(worstExcess, step - own)
                #expect(step <= own + allowance + 1e-6, "point \(key) moved \(step) px at frame \(k), its own step \(own)")
                #expect(abs(p1.presence[j] - p0.presence[i]) <= 1 / m + 1e-9)
                if p1.presence[j] != p0.presence[i] { changes += 1 }
                // Drawing it at once where its clusters put it would jump this far.
                if p1.group[j] != p0.group[i] {
                    let target = p1.group[j] < 0
                        ? (x: WebMercator.x(lon: p1.points.lon[j]), y: WebMercator.y(lat: p1.points.lat[j]))
                        : p1.bubbles.first { $0.track == p1.group[j] && !$0.ghost }.map { (x: $0.x, y: $0.y) }!
                    let jump = hypot(AnimationMath.shortDelta(from: p0.shownX[i], to: target.x), target.y - p0.shownY[i]) * ws
                    naiveJump = max(naiveJump, jump)
                }
            }
            // Bubbles: radius changes by at most the largest radius / m; a new bubble starts small.
            let maxRadius = r.base.style.cluster.steps.map(\.radius).max()!
            var previous: [Int: FramePlan.Bubble] = [:]
            for b in p0.bubbles { previous[b.track] = b }
            for b in p1.bubbles {
                if let a = previous[b.track] {
                    #expect(abs(b.radius - a.radius) <= maxRadius / m + 1e-9)
                    let moved = hypot(b.x - a.x, b.y - a.y) * ws
                    #expect(moved <= maxOwnStep + allowance + 1e-6)
                } else {
                    #expect(b.radius <= b.targetRadius / m + 1e-9, "bubble \(b.track) appeared at radius \(b.radius)")
                }
            }
            // A bubble that is gone leaves as a ghost first.
            let now = Set(p1.bubbles.map(\.track))
            for b in p0.bubbles where !now.contains(b.track) {
                #expect(b.radius <= maxRadius / m + 1e-9, "bubble \(b.track) vanished at radius \(b.radius)")
            }
        }
        // The scene really has points joining and leaving bubbles.
        #expect(changes > 50)
        #expect(worstExcess > 0)
        // Without continuity the bound would not hold.
        #expect(naiveJump > 2 * 3 * radiusPx / 6)
        // The last frame is keyframe B at rest: no ghost, every bubble at its size.
        #expect(plans.last!.atRest)
        #expect(plans.last!.bubbles.allSatisfy { !$0.ghost && $0.radius == $0.targetRadius })
        #expect(plans.last!.presence.allSatisfy { $0 == 0 || $0 == 1 })
    }

    /// A point that goes into another bubble sets off from exactly where the previous frame
    /// showed it: its offset from the new bubble's centre is the previous one scaled by what is
    /// left of the effect. Continuity does not keep the position of a point settled in its bubble
    /// (it was shown at the bubble's centre), so this checks where it takes it from.
    @Test func aPointChangingBubbleSetsOffFromWhereItWasShown() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Data_.placesRequest(in: dir)
        let plans = try AnimationRenderer.plans(r)
        var fromSettled = 0, fromTravelling = 0
        for k in 1..<plans.count {
            let p0 = plans[k - 1], p1 = plans[k]
            var before: [Int: Int] = [:]
            for (i, key) in p0.keys.enumerated() { before[key] = i }
            var centre: [Int: (x: Double, y: Double)] = [:]
            for b in p1.bubbles where !b.ghost { centre[b.track] = (b.x, b.y) }
            for (j, key) in p1.keys.enumerated() {
                guard let i = before[key], p1.group[j] >= 0, p1.group[j] != p0.group[i], p0.group[i] >= 0 else { continue }
                let t = try #require(centre[p1.group[j]])
                let a = (x: p0.shownX[i] - t.x, y: p0.shownY[i] - t.y)
                let b = (x: p1.shownX[j] - t.x, y: p1.shownY[j] - t.y)
                let (la, lb) = (hypot(a.x, a.y), hypot(b.x, b.y))
                // b = a * w, 0 <= w <= 1.
                #expect(abs(a.x * b.y - a.y * b.x) <= 1e-9 * la * lb, "point \(key), frame \(k)")
                #expect(a.x * b.x + a.y * b.y >= 0 && lb <= la * (1 + 1e-9), "point \(key), frame \(k)")
                if p0.presence[i] == 0 && p0.shownX[i] == p0.bubbles.first(where: { $0.track == p0.group[i] && !$0.ghost })?.x {
                    fromSettled += 1
                } else {
                    fromTravelling += 1
                }
            }
        }
        // Both cases happen: points that had settled in their bubble, and points still on their way.
        #expect(fromSettled > 20)
        #expect(fromTravelling > 0)
    }

    @Test func pathsCrossTheAntimeridianTheShortWay() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        typealias F = AnimationTestData.Feature
        let a = [F(id: 1, lon: 170, lat: -10, name: "a"), F(id: 2, lon: 175, lat: -20, name: "b")]
        let b = [F(id: 1, lon: -170, lat: -12, name: "a"), F(id: 2, lon: -178, lat: -18, name: "b")]
        let paths = try Data_.write([a, b], to: dir)
        var r = Data_.request(.keyframes(paths))
        r.framesPerTransition = 8
        r.base.clustering = nil
        let plans = try AnimationRenderer.plans(r)
        let v = plans[0].viewport
        // The view is centred near 180°, zoomed in (not the whole world).
        #expect(abs(abs(v.centerLongitude) - 180) < 5)
        #expect(v.zoom > 2)
        // Point 1 moves east every frame and stays on screen.
        var lastX = -Double.infinity
        for p in plans {
            let i = p.keys.firstIndex(of: 0)!                  // id 1: the first key
            let px = v.pixel(x: p.shownX[i], y: p.shownY[i]).x
            #expect(px > lastX)
            #expect(px >= 0 && px <= 320)
            lastX = px
        }
    }

    @Test func followMovesTheViewSmoothly() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        typealias F = AnimationTestData.Feature
        let a = [F(id: 1, lon: 0, lat: 0, name: "a"), F(id: 2, lon: 2, lat: 1, name: "b")]
        let b = [F(id: 1, lon: 60, lat: 30, name: "a"), F(id: 2, lon: 62, lat: 31, name: "b")]
        let paths = try Data_.write([a, b], to: dir)
        var r = Data_.request(.keyframes(paths))
        r.framesPerTransition = 20
        r.follow = true
        r.base.clustering = nil
        let plans = try AnimationRenderer.plans(r)
        let first = plans.first!.viewport, last = plans.last!.viewport
        #expect(last.centerLongitude - first.centerLongitude > 30)
        for k in 1..<plans.count {
            let v0 = plans[k - 1].viewport, v1 = plans[k].viewport
            #expect(abs(v1.zoom - v0.zoom) < 0.5)
            #expect(abs(v1.centerLongitude - v0.centerLongitude) < 10)
        }
    }

    /// Alpha at (0, 0) stays; B comes from `far` to `near` (lon, lat) and goes back, over three
    /// keyframes of 6 frames each; unclustered, labelled by name.
    static func bPassesAlpha(far: (Double, Double), near: (Double, Double), in dir: URL) throws -> AnimationRequest {
        typealias F = AnimationTestData.Feature
        let alpha = F(id: 1, lon: 0, lat: 0, name: "Alpha")
        let away = F(id: 2, lon: far.0, lat: far.1, name: "B"), close = F(id: 2, lon: near.0, lat: near.1, name: "B")
        var r = Data_.request(.keyframes(try Data_.write([[alpha, away], [alpha, close], [alpha, away]], to: dir)))
        r.base.clustering = nil
        r.base.layout.labelField = "name"
        r.framesPerTransition = 6
        return r
    }

    /// Whether frames 6t ... 6t + 6 (a transition of 6 frames) show a label as `LabelSchedule`
    /// places it when its side at the keyframe before is `first` and after is `second` (true: the
    /// first side): in frames 1 and 2 on the first side, fading; left out in frame 3; in frames 4
    /// and 5 on the second side, fading in. A frame where its side is taken leaves it out (nil),
    /// but at least one frame shows it on each side. `side(k)` is nil when frame k has no label.
    static func followsSchedule(_ side: (Int) -> Bool?, opacity: (Int) -> Double?, transition t: Int,
                                first: Bool, second: Bool) -> Bool {
        let k0 = 6 * t
        guard side(k0) == first, side(k0 + 6) == second, opacity(k0) == 1, opacity(k0 + 6) == 1 else { return false }
        if first == second {
            return (1...5).allSatisfy { side(k0 + $0) == nil || side(k0 + $0) == first }
        }
        let before = [1, 2].filter { side(k0 + $0) != nil }, after = [4, 5].filter { side(k0 + $0) != nil }
        return !before.isEmpty && !after.isEmpty && side(k0 + 3) == nil
            && before.allSatisfy { side(k0 + $0) == first && opacity(k0 + $0)! < 1 }
            && after.allSatisfy { side(k0 + $0) == second && opacity(k0 + $0)! < 1 }
    }

    /// A label pushed to the other side at a keyframe by a marker passing next to it does not jump
    /// there mid-transition: it fades out on its side, is left out in the middle frame and fades
    /// in on the other, and back again in the next transition. Each keyframe's frame is the still map.
    @Test func labelsFadeToTheirNextSideAndNeverJump() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = try Self.bPassesAlpha(far: (30, 0), near: (3, 0), in: dir)
        // Markers above 8 px are hard label obstacles (smaller dots are soft: a label may cover them).
        r.base.style.marker.size = 12
        let frames = try AnimationRenderer.scenes(r)
        func alphaLabel(_ k: Int) -> LabelMark? { frames[k].scene.labels.first { $0.text == "Alpha" } }
        let v = frames[0].plan.viewport
        let x = v.pixel(x: WebMercator.x(lon: 0), y: WebMercator.y(lat: 0)).x
        func right(_ k: Int) -> Bool? { alphaLabel(k).map { $0.x > x } }
        // Right of its marker at first, left while B is next to it, right again when B has gone.
        #expect(Self.followsSchedule(right, opacity: { alphaLabel($0)?.opacity }, transition: 0, first: true, second: false),
                "\((0...6).map { alphaLabel($0).map { "\($0.x) \($0.opacity)" } ?? "-" })")
        #expect(Self.followsSchedule(right, opacity: { alphaLabel($0)?.opacity }, transition: 1, first: false, second: true),
                "\((6...12).map { alphaLabel($0).map { "\($0.x) \($0.opacity)" } ?? "-" })")
        // A single map of the last keyframe puts it on the right, as the last frame does.
        var single = r.base
        single.points = frames[12].plan.points
        single.view = .center(lat: v.centerLatitude, lon: v.centerLongitude, zoom: v.zoom)
        let scene = try MapRenderer.render(single).scene
        #expect(alphaLabel(12) == scene.labels.first { $0.text == "Alpha" })
    }

    /// Callouts keep their side as labels do: Alpha's callout, above its pin at first and below
    /// it at the keyframe where B's pin stands above, fades from one side to the other mid-way
    /// through each transition, never jumping.
    @Test func calloutsFadeToTheirNextSideAndNeverJump() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = try Self.bPassesAlpha(far: (30, 10), near: (0.3, 1.2), in: dir)
        r.base.layout.labelStyle = .callout
        let frames = try AnimationRenderer.scenes(r)
        func callout(_ k: Int) -> CalloutMark? {
            frames[k].scene.items.lazy.compactMap { if case .callout(let c) = $0, c.text == "Alpha" { c } else { nil } }.first
        }
        let v = frames[0].plan.viewport
        let y = v.pixel(x: WebMercator.x(lon: 0), y: WebMercator.y(lat: 0)).y
        func above(_ k: Int) -> Bool? { callout(k).map { $0.box.maxY < y } }
        #expect(Self.followsSchedule(above, opacity: { callout($0)?.opacity }, transition: 0, first: true, second: false))
        #expect(Self.followsSchedule(above, opacity: { callout($0)?.opacity }, transition: 1, first: false, second: true))
    }

    /// A bubble's label or callout keeps its side as a point's does, under the point it is named
    /// after: "Alpha +2", pushed off its first side at the keyframe where B's pin stands there,
    /// fades from side to side mid-way through each transition, never jumping.
    @Test(arguments: [LayoutOptions.LabelStyle.plain, .callout])
    func bubbleNamesFadeToTheirNextSideAndNeverJump(style: LayoutOptions.LabelStyle) throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        typealias F = AnimationTestData.Feature
        let bubble = [F(id: 1, lon: 0, lat: 0, name: "Alpha"), F(id: 3, lon: 0.3, lat: 0.2, name: "Beta"),
                      F(id: 4, lon: -0.2, lat: 0.3, name: "Gamma")]
        // At zoom 3 (11.4 px a degree), B's pin 51 px right of the bubble or 46 px above it, where
        // its name goes first, yet beyond the cluster radius.
        let near = style == .plain ? (4.5, 0.0) : (0.0, 4.0)
        let away = F(id: 2, lon: 18, lat: -6, name: "B"), close = F(id: 2, lon: near.0, lat: near.1, name: "B")
        // Ranked by id: Alpha, the first, names the bubble.
        var r = Data_.request(.keyframes(try Data_.write([bubble + [away], bubble + [close], bubble + [away]], to: dir, ranked: true)))
        r.base.layout.labelField = "name"
        r.base.layout.labelStyle = style
        r.base.style.marker.size = 12
        r.base.view = .center(lat: 0, lon: 10, zoom: 3)
        let frames = try AnimationRenderer.scenes(r)
        /// The box and opacity of the bubble's name in frame k.
        func name(_ k: Int) -> (box: Rect, opacity: Double)? {
            for item in frames[k].scene.items {
                if case .label(let l) = item, l.text == "Alpha +2" { return (Rect(x: l.x, y: l.y, width: l.width, height: l.height), l.opacity) }
                if case .callout(let c) = item, c.text == "Alpha +2" { return (c.box, c.opacity) }
            }
            return nil
        }
        let b = try #require(frames[0].plan.marks.bubbles.first { $0.count == 3 })
        /// The side of the bubble's centre a box is on: plain labels start right of it, callouts above.
        func onFirstSide(_ k: Int) -> Bool? { name(k).map { style == .plain ? $0.box.x > b.x : $0.box.maxY < b.y } }
        let names = (0...12).map { name($0).map { "\($0.box) \($0.opacity)" } ?? "-" }
        #expect(Self.followsSchedule(onFirstSide, opacity: { name($0)?.opacity }, transition: 0, first: true, second: false), "\(names)")
        #expect(Self.followsSchedule(onFirstSide, opacity: { name($0)?.opacity }, transition: 1, first: false, second: true), "\(names)")
    }

    /// An inserted point fades its marker and label in together: in every frame its label shows
    /// only with its marker, at the marker's opacity, and neither goes back (no flicker).
    @Test func anInsertedPointFadesItsMarkerAndLabelTogether() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        typealias F = AnimationTestData.Feature
        let a = [F(id: 1, lon: 0, lat: 0, name: "Old"), F(id: 2, lon: 0.5, lat: 0.3, name: "Near")]
        let b = a + [F(id: 3, lon: 8, lat: 4, name: "New")]
        let paths = try Data_.write([a, b], to: dir)
        var r = Data_.request(.keyframes(paths))
        r.base.layout.labelField = "name"
        r.framesPerTransition = 12
        let frames = try AnimationRenderer.scenes(r)
        var lastOpacity = 0.0
        for (plan, scene) in frames {
            let label = scene.labels.first { $0.text == "New" }
            guard let i = plan.points.ids.firstIndex(of: .number(3)) else {
                #expect(label == nil)
                continue
            }
            let shown = plan.drawn.contains(i)
            let quantised = (plan.opacity[i] * 16).rounded() / 16
            if let label {
                #expect(shown, "frame \(plan.index): the label shows without its marker")
                #expect(label.opacity == quantised, "frame \(plan.index): label at \(label.opacity), marker at \(quantised)")
            } else if shown {
                #expect(quantised == 0, "frame \(plan.index): a visible marker without its label")
            }
            #expect(plan.opacity[i] >= lastOpacity)
            lastOpacity = plan.opacity[i]
        }
        #expect(lastOpacity == 1)
    }

    /// An inserted point's callout fades in with its marker, as a label does: in every frame at the
    /// marker's quantised opacity, only with its marker; the Cairo frame composites it at that
    /// opacity (its box's fill, white on the basemap, is as pale as the opacity says).
    @Test func anInsertedPointFadesItsCalloutWithItsMarker() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        typealias F = AnimationTestData.Feature
        let a = [F(id: 1, lon: 0, lat: 0, name: "Old")]
        let b = a + [F(id: 3, lon: 8, lat: -4, name: "New")]
        let paths = try Data_.write([a, b], to: dir)
        var r = Data_.request(.keyframes(paths))
        r.base.layout.labelField = "name"
        r.base.layout.labelStyle = .callout
        r.framesPerTransition = 12
        let frames = try AnimationRenderer.scenes(r)
        var seen: Set<Double> = []
        for (plan, scene) in frames {
            let callout = scene.items.lazy.compactMap { if case .callout(let c) = $0, c.text == "New" { c } else { nil } }.first
            guard let i = plan.points.ids.firstIndex(of: .number(3)) else {
                #expect(callout == nil)
                continue
            }
            let quantised = (plan.opacity[i] * 16).rounded() / 16
            if let callout {
                #expect(plan.drawn.contains(i), "frame \(plan.index): the callout shows without its marker")
                #expect(callout.opacity == quantised, "frame \(plan.index): callout at \(callout.opacity), marker at \(quantised)")
                seen.insert(callout.opacity)
            } else {
                #expect(quantised == 0, "frame \(plan.index): a visible marker without its callout")
            }
        }
        #expect(seen.count >= 5 && seen.contains(1))
        // A frame near half-faded: in the box's left padding, at mid-height (clear of corners and
        // text), the pixel is the white fill over the frame drawn without callouts at that opacity.
        let (plan, scene) = try #require(frames.min { f, g in
            func off(_ f: (plan: FramePlan, scene: Scene)) -> Double {
                f.plan.points.ids.firstIndex(of: .number(3)).map { abs(f.plan.opacity[$0] - 0.5) } ?? 1
            }
            return off(f) < off(g)
        })
        let box = try #require(scene.items.lazy.compactMap { if case .callout(let c) = $0, c.text == "New" { c } else { nil } }.first)
        #expect(box.opacity > 0.3 && box.opacity < 0.7)
        var bare = r
        bare.base.layout.labelField = nil
        func pixel(_ request: AnimationRequest) throws -> [Double] {
            var png: Data?
            try AnimationRenderer.render(request, onFrame: { k, d in if k == plan.index { png = d } })
            let image = try PNGCodec.decode(data: try #require(png))
            let at = (Int(box.box.y + box.box.height / 2) * image.width + Int(box.box.x + 3)) * 4
            return (0..<3).map { Double(image.pixels[at + $0]) }
        }
        let drawn = try pixel(r), under = try pixel(bare)
        for c in 0..<3 {
            let expected = box.opacity * 255 + (1 - box.opacity) * under[c]
            #expect(abs(drawn[c] - expected) <= 2, "channel \(c): \(drawn[c]), expected \(expected) (under it \(under[c]))")
        }
    }

    /// A bubble is named only while it is `nameable`: a bubble growing in (below 60 % of its size)
    /// or shrinking away between keyframes gets no label and no callout (it may show its count:
    /// issue 47).
    @Test(arguments: [LayoutOptions.LabelStyle.plain, .callout])
    func bubblesAreNamedOnlyWhileTheyShowTheirCount(style: LayoutOptions.LabelStyle) throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var r = Data_.request(.keyframes(try Data_.placesKeyframes(in: dir, ranked: true)))
        r.base.width = 640
        r.base.height = 400
        r.base.layout.labelField = "name"
        r.base.layout.labelStyle = style
        r.framesPerTransition = 8
        var countless = 0, named = 0
        for (plan, scene) in try AnimationRenderer.scenes(r) {
            countless += plan.marks.bubbles.filter { !$0.nameable }.count
            let bubbles = scene.items.compactMap { item -> Int? in
                switch item {
                case .label(let l): return l.bubble
                case .callout(let c): return c.bubble
                default: return nil
                }
            }
            named += bubbles.count
            for b in bubbles { #expect(plan.marks.bubbles[b].nameable, "frame \(plan.index): a growing or vanishing bubble is named") }
        }
        #expect(countless > 0 && named > 0, "\(countless) bubbles growing or vanishing, \(named) named")
    }

    /// In the SMIL SVG a bubble that is gone by the end ends at radius 0 (it shrank away), and the
    /// bubbles shown in the last frame are exactly the last frame's scene's (the SVG is written from
    /// the scenes: a planned bubble off the image is in neither). Read as a browser paused at the
    /// last frame's time would (`AnimatedSVGBubbleStackingTests.discs`: each bubble may have a copy
    /// per run of frames stacked alike).
    @Test func animatedSVGBubblesThatVanishEndAtRadiusZero() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Data_.placesKeyframes(in: dir)
        let path = dir.appendingPathComponent("anim.svg").path
        var r = Data_.request(.keyframes(paths), output: .animatedSVG(path))
        r.framesPerTransition = 6
        try AnimationRenderer.render(r)
        let scenes = try AnimationRenderer.scenes(r)
        let n = scenes.count
        let discs = AnimatedSVGBubbleStackingTests.discs(try String(contentsOfFile: path, encoding: .utf8), frames: n)
        let (plan, scene) = scenes.last!
        let last = scene.bubbles
        #expect(plan.atRest)
        let shown = discs.filter { $0.shown[n - 1] }
        #expect(shown.count == last.count)
        #expect(Set(shown.map { ($0.at[n - 1].r * 100).rounded() / 100 }) == Set(last.map { Double(Float($0.radius)) }.map { ($0 * 100).rounded() / 100 }))
        // Some bubbles vanished on the way: shown in a frame before, radius 0 at the end.
        let vanished = discs.filter { d in d.at[n - 1].r == 0 && d.shown.contains(true) }
        #expect(!vanished.isEmpty)
    }

    // MARK: Tracks

    @Test func tracksShowEachIDOnlyWhileItHasSamplesUnlessHeld() throws {
        // The Cerknica walk, 2010-08-05 14:23:59 → 16:23:49 UTC, in 12 frames.
        var r = Data_.request(.tracks(Data_.tracks, TrackColumns(id: "id", time: "time")))
        r.start = TrackTime.parse("2010-08-05T14:00:00Z")
        r.end = TrackTime.parse("2010-08-05T17:00:00Z")
        r.fps = 4
        r.duration = 3
        let plans = try AnimationRenderer.plans(r)
        #expect(plans.count == 12)
        #expect(plans[0].points.count == 0)                       // before the walk starts
        #expect(plans[5].points.ids == [.string("gps-cerknica-2010-08-05")])
        #expect(plans[11].points.count == 0)                      // after it ends
        r.hold = true
        let held = try AnimationRenderer.plans(r)
        #expect(held.allSatisfy { $0.points.count == 5 })
    }

    /// Tracks of storms years apart leave most frames of their whole span empty: a warning says
    /// how many, the same count as the frames planned with no point, and what to do. None with a
    /// window the tracks fill, nor with `--hold`.
    @Test func emptyTrackFramesAreCountedInAWarning() throws {
        var r = Data_.request(.tracks(TestPaths.repoFile("samples/tracks.csv"), TrackColumns(id: "id", time: "time")))
        r.fps = 4
        r.duration = 3
        let plans = try AnimationRenderer.plans(r)
        let empty = plans.filter { $0.points.count == 0 }.count
        #expect(plans.count == 12 && empty == 10)
        let warnings = try AnimationRenderer.render(r).warnings.filter { $0.contains("show no point") }
        #expect(warnings == ["10 of 12 frames fall outside every track's time span and show no point (a track is shown "
                             + "from its first sample to its last; the tracks cover 0.25% of the animation's time); pick a "
                             + "time window with --start and --end, or keep tracks in view with --hold"])
        r.hold = true
        #expect(try AnimationRenderer.render(r).warnings.allSatisfy { !$0.contains("show no point") })
        r.hold = false
        r.start = TrackTime.parse("2004-03-19T18:00:00Z")
        r.end = TrackTime.parse("2004-03-28T18:00:00Z")
        #expect(try AnimationRenderer.render(r).warnings.allSatisfy { !$0.contains("show no point") })
        // A window wider than the storm: only --hold is suggested.
        r.end = TrackTime.parse("2004-04-28T18:00:00Z")
        let wide = try AnimationRenderer.render(r).warnings.filter { $0.contains("show no point") }
        #expect(wide.count == 1 && wide[0].hasSuffix("); keep tracks in view with --hold"))
    }

    /// The count of frames outside every track's span is the count of frames the reader gives no
    /// point, on generated tracks whose samples fall exactly on frame times, between them, one
    /// sample long, and before and after every frame.
    @Test func emptyTrackFrameCountMatchesTheReader() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        for seed in 0..<30 {
            var g = SeededRandom(seed: UInt64(seed))
            var csv = "id,time,lat,lon\n"
            let tracks = Int(g.next() % 5)
            for t in 0..<tracks {
                // Frame k is at 1000 + 100 k seconds (11 frames); samples on frame times or 50 s off.
                let a = 900 + 50 * Int(g.next() % 26), samples = 1 + Int(g.next() % 3)
                for k in 0..<samples {
                    let time = a + 50 * k * Int(g.next() % 4)
                    csv += "t\(t),\(time),\(Double(t)),\(Double(k))\n"
                }
            }
            let path = dir.appendingPathComponent("gen\(seed).csv").path
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            var r = Data_.request(.tracks(path, TrackColumns(id: "id", time: "time")))
            r.start = 1000
            r.end = 2000
            r.frameCount = 11
            r.base.allowEmpty = true
            let plans = try AnimationRenderer.plans(r)
            let empty = plans.filter { $0.points.count == 0 }.count
            let warning = try AnimationRenderer.render(r).warnings.first { $0.contains("show no point") }
            if tracks == 0 || empty == 0 {
                #expect(warning == nil, "seed \(seed)")
            } else {
                #expect(warning?.hasPrefix("\(empty) of 11 frames") == true, "seed \(seed): \(empty) empty, \(warning ?? "no warning")")
            }
        }
        #expect(AnimationSource.percent(100) == "100%" && AnimationSource.percent(99.7) == "over 99%")
        #expect(AnimationSource.percent(0.001) == "under 0.01%" && AnimationSource.percent(0) == "0%")
        #expect(AnimationSource.percent(0.25) == "0.25%" && AnimationSource.percent(42.4) == "42%")
    }

    /// Cluster effects are timed in the data's time: with 5 frames over the span, each frame is
    /// far apart (a quarter of the span, the effects a thirtieth), so every frame shows points at
    /// their positions and bubbles settled, as still maps do.
    @Test func tracksWithFewFramesShowPointsWhereTheyAre() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        // Two walkers crossing a third one's path: they join and leave its cluster.
        var csv = "id,time,lat,lon\n"
        for k in 0...4 {
            let t = 1000 * k
            csv += "a,\(t),0,\(Double(k) * 0.5)\n"
            csv += "b,\(t),0.01,\(2 - Double(k) * 0.5)\n"
            csv += "c,\(t),0.02,1\n"
        }
        let path = dir.appendingPathComponent("walk.csv").path
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        var r = Data_.request(.tracks(path, TrackColumns(id: "id", time: "time")))
        r.frameCount = 5
        r.base.view = .center(lat: 0, lon: 1, zoom: 7)
        let plans = try AnimationRenderer.plans(r)
        #expect(plans.count == 5)
        #expect(plans.contains { !$0.bubbles.isEmpty })
        for p in plans {
            #expect(p.presence.allSatisfy { $0 == 0 || $0 == 1 }, "frame \(p.index): a point between a bubble and its position")
            #expect(p.bubbles.allSatisfy { !$0.ghost && $0.radius == $0.targetRadius })
            for i in p.drawn { #expect(abs(p.shownX[i] - WebMercator.x(lon: p.points.lon[i])) < 1e-9) }
        }
    }

    @Test func durationsParse() {
        #expect(AnimationDuration.parse("20s") == 20)
        #expect(AnimationDuration.parse("1.5m") == 90)
        #expect(AnimationDuration.parse("2m30s") == 150)
        #expect(AnimationDuration.parse("12") == 12)
        #expect(AnimationDuration.parse("1h") == 3600)
        #expect(AnimationDuration.parse("250ms") == 0.25)
        #expect(AnimationDuration.parse("0") == nil)
        #expect(AnimationDuration.parse("abc") == nil)
        #expect(AnimationDuration.parse("5x") == nil)
        #expect(AnimationDuration.parse("") == nil)
    }

    // MARK: Golden frames

    @Test func goldenFramesOfClustersMerging() throws {
        let dir = try Data_.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Data_.placesKeyframes(in: dir)
        var r = Data_.request(.keyframes(paths))
        r.base.basemaps = [Data_.countries]
        r.base.width = 512                      // the whole world at zoom 0
        r.base.height = 320
        r.framesPerTransition = 8
        var frames: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, data in if k == 3 || k == 8 { frames[k] = data } })
        try Snapshot.assertMatches(frames[3]!, named: "placesMidTransition", format: .png, maxDifferentPixels: 40)
        try Snapshot.assertMatches(frames[8]!, named: "placesLastFrame", format: .png, maxDifferentPixels: 40)
        // The last frame, at rest, is the still map of keyframe B in the animation's view.
        let v = try AnimationRenderer.plans(r).last!.viewport
        var still = r.base
        still.inputs = [paths[1]]
        still.view = .center(lat: v.centerLatitude, lon: v.centerLongitude, zoom: v.zoom)
        #expect(try MapRenderer.render(still).data == frames[8]!)
    }

    @Test func goldenFrameOfALabelledStorm() throws {
        var r = Data_.request(.tracks(Data_.tracks, TrackColumns()))
        r.start = TrackTime.parse("2004-03-19T18:00:00Z")
        r.end = TrackTime.parse("2004-03-28T18:00:00Z")
        r.frameCount = 9
        r.base.basemaps = [Data_.countries]
        r.base.style.marker.shape = .pin
        r.base.style.marker.size = 20
        r.base.layout.labelField = "id"
        var frames: [Int: Data] = [:]
        try AnimationRenderer.render(r, onFrame: { k, data in frames[k] = data })
        #expect(frames.count == 9)
        try Snapshot.assertMatches(frames[4]!, named: "stormCatarina", format: .png, maxDifferentPixels: 40)
    }
}
