import Foundation
import Testing
import MapRenderCairo
import TestSupport
@testable import MapRender

/// The animated SVG as a user sees it: opened in headless Chromium (Debian `chromium`, installed
/// by scripts/deps.sh), every SMIL animation paused at a frame's time, the screenshot matches the
/// PNG frame of that time.
///
/// One Chromium launch shows the SVG several times side by side (inline in one HTML page), each
/// copy paused at its own time with `pauseAnimations()` and `setCurrentTime()`; the screenshot
/// is cut into frames and each is compared with `ImageDiff` (pixelmatch's threshold 0.1,
/// anti-aliased pixels forgiven).
///
/// Tolerance: at most 0.6 % of the pixels may differ. The browser draws the same geometry with its
/// own rasteriser (edges anti-aliased differently) and draws bubble counts and labels as SVG
/// `<text>` with its own shaping and hinting (at the baseline Pango puts in the layout's box):
/// measured 0.07–0.24 % here. A missing or misplaced marker, bubble or label (at
/// this size one label is about 0.3 % of the image) or a bubble at the wrong radius shows: labels
/// 3 px too high make 0.9–1.2 %.
@Suite struct AnimatedSVGBrowserTests {
    static let tolerance = 0.006

    static func chromium() -> String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func smilFramesInChromiumMatchThePNGFrames() throws {
        let browser = try #require(Self.chromium(),
            "Chromium not found at /usr/bin/chromium: install the Debian package chromium (scripts/deps.sh does)")
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SeededRandom(seed: 5)
        let places = FramesAtRestTests.keyframes(&rng, count: 3)
        var paths: [String] = []
        for (j, k) in places.enumerated() {
            let url = dir.appendingPathComponent("key\(j).geojson")
            try FramesAtRestTests.geoJSON(k).write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        let svgPath = dir.appendingPathComponent("anim.svg").path
        var r = AnimationRequest(source: .keyframes(paths), output: .animatedSVG(svgPath))
        r.base.width = 320
        r.base.height = 240
        r.base.view = .center(lat: 45.5, lon: 11, zoom: 7.5)
        r.base.style.marker.shape = .circle
        r.base.style.marker.size = 10
        r.base.layout.labelField = "name"
        r.framesPerTransition = 8
        r.fps = 8
        let (rendered, frames) = try AnimationTestData.animatedSVGAndPNGFrames(r, svgPath: svgPath)
        var svg = rendered

        // Keyframes 0 and 1, mid-transition frames, and just before the loop restarts.
        let checked = [0, 3, 8, 12, 15]
        let w = 320, h = 240
        if let end = svg.range(of: "?>") { svg = String(svg[end.upperBound...]) }
        var html = "<!DOCTYPE html><html><head><style>html,body{margin:0;padding:0;overflow:hidden;background:#fff}"
        html += "div{position:absolute;top:0;width:\(w)px;height:\(h)px}svg{display:block}</style></head><body>\n"
        for (n, _) in checked.enumerated() { html += "<div style=\"left:\(n * w)px\">\(svg)</div>\n" }
        let times = checked.map { Double($0) / r.effectiveFPS }
        html += "<script>const t=[\(times.map { String($0) }.joined(separator: ","))];"
        html += "document.querySelectorAll('body>div>svg').forEach((s,i)=>{s.pauseAnimations();s.setCurrentTime(t[i]);});</script>"
        html += "</body></html>\n"
        let page = dir.appendingPathComponent("page.html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let shot = dir.appendingPathComponent("shot.png").path
        try Self.run(browser, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               "--force-device-scale-factor=1", "--user-data-dir=\(dir.path)/profile",
                               "--window-size=\(checked.count * w),\(h)", "--screenshot=\(shot)", page.absoluteString])
        let screenshot = try PNGCodec.decode(path: shot)
        #expect(screenshot.width == checked.count * w && screenshot.height == h)
        for (n, k) in checked.enumerated() {
            let expected = try PNGCodec.decode(data: try #require(frames[k]))
            let actual = Self.crop(screenshot, x: n * w, width: w, height: h)
            let diff = try ImageDiff.compare(expected, actual, makeDiffImage: true)
            if diff.differentFraction > Self.tolerance, let image = diff.diffImage {
                let out = FileManager.default.temporaryDirectory.appendingPathComponent("browser-frame-\(k)")
                try? PNGCodec.encode(image).write(to: out.appendingPathExtension("diff.png"))
                try? PNGCodec.encode(actual).write(to: out.appendingPathExtension("chromium.png"))
                try? frames[k]!.write(to: out.appendingPathExtension("frame.png"))
            }
            #expect(diff.differentFraction <= Self.tolerance,
                    "frame \(k) at \(times[n]) s: \(diff.differentPixels) pixels differ (\(diff.differentFraction * 100) %)")
        }
    }

    static func crop(_ image: RGBAImage, x: Int, width: Int, height: Int) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for row in 0..<height {
            let start = (row * image.width + x) * 4
            pixels += image.pixels[start..<(start + width * 4)]
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw MapRenderError(.internal, "\(tool) exited with \(p.terminationStatus)")
        }
    }
}
