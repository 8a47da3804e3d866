import Foundation
import MapRender
import MapRenderCore
import Testing
import TestSupport

/// `url-{URL}(lon,lat)` markers of `maprender serve --url-markers`: images from a loopback
/// Python server (http.server), drawn as the CLI draws the same file with `--marker-icon`
/// (byte-identical PNGs), and each refusal with its status and message.
@Suite(.serialized) struct ServeURLMarkerTests {
    let cli = CLITests()

    /// A Python http.server on a free loopback port serving a folder, plus: `/slow/SECONDS/NAME`
    /// (waits, then the file), `/big.png` (2 MB), `/redirect/HOST/NAME` (302 to that host on this
    /// port), `/count` (image requests answered so far).
    final class ImageServer {
        let process = Process()
        let port: Int

        static let script = #"""
        import http.server, os, sys, time, threading
        root = sys.argv[1]
        count = 0
        lock = threading.Lock()
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *a): pass
            def send(self, status, body, headers=()):
                self.send_response(status)
                for k, v in headers: self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_GET(self):
                global count
                parts = self.path.strip("/").split("/")
                if parts == ["count"]:
                    return self.send(200, str(count).encode())
                with lock: count += 1
                if parts[0] == "slow":
                    time.sleep(float(parts[1])); parts = parts[2:]
                if parts == ["big.png"]:
                    return self.send(200, b"\x89PNG" + b"\0" * (2 << 20), [("Content-Type", "image/png")])
                if parts[0] == "redirect":
                    return self.send(302, b"", [("Location", "http://%s:%d/%s" % (parts[1], self.server.server_port, parts[2]))])
                path = os.path.join(root, os.path.basename(parts[-1]))
                if not os.path.isfile(path):
                    return self.send(404, b"no such image")
                kind = {"png": "image/png", "svg": "image/svg+xml", "jpg": "image/jpeg"}.get(path.rsplit(".", 1)[-1], "application/octet-stream")
                self.send(200, open(path, "rb").read(), [("Content-Type", kind)])
        s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        print(s.server_port, flush=True)
        s.serve_forever()
        """#

        init(folder: URL) throws {
            // Beside the test's temporary files, never in the folder served (the README's is samples/icons).
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-image-server-\(getpid()).py")
            try Data(Self.script.utf8).write(to: script)
            guard let p = try PythonServer.start(process, arguments: [script.path, folder.path]) else {
                throw LoopbackHTTP.Failure(description: "the image server did not start")
            }
            port = p
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// `url-...` of an image on this server.
        func marker(_ path: String, host: String = "127.0.0.1", at lonLat: String = "2.35,48.85") -> String {
            let url = "http://\(host):\(port)/\(path)"
            return "url-" + url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "(\(lonLat))"
        }

        var count: Int { Int((try? LoopbackHTTP.request(port: port, "/count").text) ?? "") ?? -1 }
    }

    /// The folder of images: the sample icons, and a JPEG (a small map drawn by the CLI).
    func images() throws -> URL {
        let d = try cli.tempDir()
        for name in ["park.png", "cafe.svg"] {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: TestPaths.repoFile("samples/icons/\(name)")),
                                             to: d.appendingPathComponent(name))
        }
        let point = d.appendingPathComponent("point.geojson")
        try Data(#"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#.utf8).write(to: point)
        let r = try cli.run(["render", point.path, "--center", "48.85,2.35", "--zoom", "3", "--size", "20x16",
                             "-o", d.appendingPathComponent("square.jpg").path])
        #expect(r.status == 0, "\(r.stderr)")
        return d
    }

    /// The CLI's map of one icon file at the marker's position, with the server's view.
    func cliMap(icon: String, in d: URL, scale: Int = 1) throws -> Data {
        let point = d.appendingPathComponent("point.geojson")
        let out = d.appendingPathComponent("cli.png").path
        let r = try cli.run([point.path, "--marker-icon", icon, "--center", "48.85,2.35", "--zoom", "11", "--size", "300x200",
                             "--scale", String(scale), "--no-cluster", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: out))
    }

    /// The box of pixels where two maps differ: x0, y0, x1, y1 (exclusive).
    func differingBox(_ a: Data, _ b: Data) throws -> [Int] {
        let x = try PNGCodec.decode(data: a), y = try PNGCodec.decode(data: b)
        #expect(x.width == y.width && x.height == y.height)
        var box = [Int.max, Int.max, -1, -1]
        for row in 0..<x.height {
            for col in 0..<x.width {
                let k = (row * x.width + col) * 4
                if x.pixels[k..<(k + 4)] != y.pixels[k..<(k + 4)] {
                    box = [min(box[0], col), min(box[1], row), max(box[2], col + 1), max(box[3], row + 1)]
                }
            }
        }
        return box
    }

    @Test func markerImagesAreDrawnAsTheCLIDrawsTheFile() throws {
        let d = try images(); defer { try? FileManager.default.removeItem(at: d) }
        let images = try ImageServer(folder: d)
        let server = try ServeCLITests.ServerProcess(["--url-markers", "127.0.0.1", "--no-access-log"])
        defer { server.stop() }
        func served(_ marker: String, _ size: String = "300x200") throws -> LoopbackHTTP.Answer {
            try LoopbackHTTP.request(port: server.port, "/static/\(marker)/2.35,48.85,11/\(size).png?cluster=false")
        }
        let empty = try LoopbackHTTP.request(port: server.port, "/static/2.35,48.85,11/300x200.png")
        #expect(empty.status == 200)

        // PNG and SVG: byte-identical to the CLI's map of the same file (both centred: neither narrows to a pin's point).
        for name in ["park.png", "cafe.svg"] {
            let a = try served(images.marker(name))
            #expect(a.status == 200, "\(name): \(a.text)")
            #expect(a.body == (try cliMap(icon: d.appendingPathComponent(name).path, in: d)), "\(name): served and CLI maps differ")
            // The icon is there, centred on the position (the map's centre, 150,100).
            let box = try differingBox(a.body, empty.body)
            #expect(box[2] > box[0] && box[3] > box[1], "\(name): no icon pixels")
            #expect(abs(Double(box[0] + box[2]) / 2 - 150) <= 1 && abs(Double(box[1] + box[3]) / 2 - 100) <= 1, "\(name): \(box)")
        }
        // park.png is 24x24 pixels: its box on the 1x map.
        let park = try differingBox(try served(images.marker("park.png")).body, empty.body)
        #expect(park[2] - park[0] <= 24 && park[2] - park[0] >= 20, "\(park)")

        // @2x: a raster image is drawn pixel for pixel (the Mapbox API does not scale url- markers
        // for @2x), so park.png is 24 device pixels wide, not 48.
        let twice = try served(images.marker("park.png"), "300x200@2x")
        let empty2 = try LoopbackHTTP.request(port: server.port, "/static/2.35,48.85,11/300x200@2x.png")
        #expect(twice.status == 200 && LoopbackHTTP.pngSize(twice.body).map { [$0.0, $0.1] } == [600, 400])
        let box2 = try differingBox(twice.body, empty2.body)
        #expect(box2[2] - box2[0] <= 25 && box2[2] - box2[0] >= 20, "@2x: \(box2)")

        // JPEG: decoded once and drawn as the same pixels in PNG would be by the CLI.
        let jpeg = try served(images.marker("square.jpg"))
        #expect(jpeg.status == 200, "\(jpeg.text)")
        let decoded = try ImageCodec.decode(try Data(contentsOf: d.appendingPathComponent("square.jpg")), limits: .image)
        try ImageCodec.encodePNG(rgba: decoded.rgba, width: decoded.width, height: decoded.height).write(to: d.appendingPathComponent("square.png"))
        #expect(jpeg.body == (try cliMap(icon: d.appendingPathComponent("square.png").path, in: d)), "JPEG: served and CLI maps differ")

        // Fetched once, then from memory: another view of the same marker sends no request.
        let before = images.count
        let again = try LoopbackHTTP.request(port: server.port, "/static/\(images.marker("park.png"))/2.36,48.85,11/300x200.png")
        #expect(again.status == 200 && images.count == before, "\(before) \(images.count)")
        // The ETag covers the image: the same map with another image is another ETag.
        let other = try served(images.marker("cafe.svg"))
        let parkTag = try served(images.marker("park.png")).headers["etag"]
        #expect(other.headers["etag"] != nil && other.headers["etag"] != parkTag)
    }

    @Test func refusals() throws {
        let d = try images(); defer { try? FileManager.default.removeItem(at: d) }
        let images = try ImageServer(folder: d)
        let path = { (marker: String) in "/static/\(marker)/2.35,48.85,11/300x200.png" }

        // Not enabled: refused, nothing fetched.
        let off = try ServeCLITests.ServerProcess(["--no-access-log"])
        let a = try LoopbackHTTP.request(port: off.port, path(images.marker("park.png")))
        off.stop()
        #expect(a.status == 400 && a.error?.contains("url- markers are not enabled on this server (maprender serve --url-markers HOST,...)") == true, "\(a.text)")
        #expect(a.error?.hasPrefix("overlay 1 (url-http://127.0.0.1:\(images.port)/park.png)") == true, "\(a.text)")
        #expect(images.count == 0)

        let server = try ServeCLITests.ServerProcess(["--url-markers", "127.0.0.1:\(images.port)", "--timeout", "1.5", "--no-access-log"])
        defer { server.stop() }
        func get(_ marker: String) throws -> LoopbackHTTP.Answer { try LoopbackHTTP.request(port: server.port, path(marker)) }
        // Another host (the same server as localhost), another port: refused before any request.
        let host = try get(images.marker("park.png", host: "localhost"))
        #expect(host.status == 400 && host.error?.contains("the host 'localhost:\(images.port)' is not one this server fetches marker images from (127.0.0.1:\(images.port))") == true, "\(host.text)")
        let port = try get("url-http%3A%2F%2F127.0.0.1%3A1%2Fpark.png(2.35,48.85)")
        #expect(port.status == 400 && port.error?.contains("the host '127.0.0.1:1' is not one") == true, "\(port.text)")
        #expect(images.count == 0)
        let scheme = try get("url-file%3A%2F%2F%2Fetc%2Fpasswd(2.35,48.85)")
        #expect(scheme.status == 400 && scheme.error?.contains("is not an absolute URL") == true || scheme.error?.contains("only http and https") == true, "\(scheme.text)")
        // A redirect to a host not allowed: 502, not followed.
        let redirect = try get(images.marker("redirect/localhost/park.png"))
        #expect(redirect.status == 502 && redirect.error?.contains("redirected to host 'localhost:\(images.port)', not one this server fetches marker images from") == true, "\(redirect.text)")
        // Too large in bytes (libcurl stops at 1 MB) and in pixels (from the header: a 24x24 PNG
        // claiming 5000x5000 is refused before decoding).
        let big = try get(images.marker("big.png"))
        #expect(big.status == 502 && big.error?.contains("the marker image is larger than 1 MB") == true, "\(big.text)")
        var png = try Data(contentsOf: d.appendingPathComponent("park.png"))
        png.replaceSubrange(16..<24, with: [0, 0, 0x13, 0x88, 0, 0, 0x13, 0x88])
        try png.write(to: d.appendingPathComponent("huge.png"))
        let huge = try get(images.marker("huge.png"))
        #expect(huge.status == 502 && huge.error?.contains("the marker image is too large: PNG is 5000x5000 pixels") == true, "\(huge.text)")
        // Not an image; missing.
        try Data("hello".utf8).write(to: d.appendingPathComponent("text.png"))
        let text = try get(images.marker("text.png"))
        #expect(text.status == 502 && text.error?.contains("is not a PNG, JPEG, WebP or SVG image") == true, "\(text.text)")
        let missing = try get(images.marker("nothing.png"))
        #expect(missing.status == 502 && missing.error?.contains("answered HTTP 404") == true, "\(missing.text)")
        // A slow server: 504 at the server's --timeout (1.5 s), and the server answers after.
        let start = Date()
        let slow = try get(images.marker("slow/5/park.png"))
        let took = Date().timeIntervalSince(start)
        #expect(slow.status == 504 && slow.error?.contains("the marker image did not arrive") == true, "\(slow.text)")
        #expect(took < 4, "\(took) s")
        #expect(try LoopbackHTTP.request(port: server.port, "/health").status == 200)
        #expect(try get(images.marker("park.png")).status == 200)
    }

    /// The README's url- marker commands: the same folder served, the server started as printed
    /// (free ports), the map its curl asks for is the README's picture, byte for byte.
    @Test func theReadmesURLMarkerMap() throws {
        let block = try #require(try ReadmeDeploymentTests.blocks("sh", in: ServeReadmeTests.heading).first { $0.contains("--url-markers") })
        let lines = block.split(separator: "\n").map(String.init)
        let folder = try #require(lines.first { $0.hasPrefix("python3 -m http.server ") }.flatMap { ServeReadmeTests.words($0).drop { $0 != "--directory" }.dropFirst().first })
        let images = try ImageServer(folder: TestPaths.repo.appendingPathComponent(folder))
        var args = Array(ServeReadmeTests.words(try #require(lines.first { $0.hasPrefix("maprender serve ") })).dropFirst(2))
        let p = try #require(args.firstIndex(of: "--port"))
        args.remove(at: p + 1); args.remove(at: p)
        args = args.map { $0.replacingOccurrences(of: "127.0.0.1:8000", with: "127.0.0.1:\(images.port)") }
        let server = try ServeCLITests.ServerProcess(args + ["--no-access-log"])
        defer { server.stop() }
        let curl = ServeReadmeTests.words(try #require(lines.first { $0.hasPrefix("curl ") }))
        let url = try #require(curl.first { $0.hasPrefix("http://127.0.0.1:8080/") })
        let path = String(url.dropFirst("http://127.0.0.1:8080".count)).replacingOccurrences(of: "127.0.0.1%3A8000", with: "127.0.0.1%3A\(images.port)")
        let a = try LoopbackHTTP.request(port: server.port, path)
        #expect(a.status == 200, "\(a.text.prefix(300))")
        let file = URL(fileURLWithPath: TestPaths.repoFile("docs/images/serve-url-markers.png"))
        if ProcessInfo.processInfo.environment["MAPRENDER_RECORD"] == "1" {
            try a.body.write(to: file)
        } else {
            #expect(a.body == (try Data(contentsOf: file)), "the README's picture is not what the server draws: MAPRENDER_RECORD=1 rewrites it")
        }
    }
}
