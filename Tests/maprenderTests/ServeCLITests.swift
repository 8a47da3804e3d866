import Foundation
import MapRender
import MapRenderServe
import Testing
import TestSupport

/// `maprender serve` as a process: the same map by URL, by POST and by `maprender render` is
/// the same bytes; SIGTERM lets a render in flight finish, refuses new connections, exits 0.
@Suite(.serialized) struct ServeCLITests {
    let cli = CLITests()

    /// A server process on a free port; its port read from its "listening on" line.
    final class ServerProcess {
        let process = Process()
        let port: Int
        let stderr = Pipe()

        init(_ args: [String]) throws {
            process.executableURL = CLITests.binary
            process.arguments = ["serve", "--port", "0"] + args
            process.currentDirectoryURL = CLITests.repo
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while !text.contains("\n") && Date() < deadline {
                let d = stderr.fileHandleForReading.availableData
                if d.isEmpty { break }
                text += String(decoding: d, as: UTF8.self)
            }
            guard let r = text.range(of: "listening on http://127.0.0.1:"),
                  let p = Int(text[r.upperBound...].prefix { $0.isNumber }) else {
                process.terminate()
                throw LoopbackHTTP.Failure(description: "no listening line: \(text)")
            }
            port = p
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    @Test func sameMapByURLByPostAndByTheCLI() throws {
        let server = try ServerProcess(["--no-access-log"])
        defer { server.stop() }
        let overlays = "pin-s-a+f00(2.35,48.85),pin-l-b+0000ff(2.29,48.86),pin-s+0a0(2.4,48.84),path-3+f44-0.8(_p~iF~ps%7CU_ulLnnqC_mqNvxq%60%40)"
        let byURL = try LoopbackHTTP.request(port: server.port, "/static/\(overlays)/2.33,48.85,11/300x200.png?cluster=false")
        #expect(byURL.status == 200, "\(byURL.text)")
        // The overlays as the GeoJSON every other input is.
        let fc = try #require(Overlay.featureCollection(try Overlay.parseList(overlays)))
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let file = d.appendingPathComponent("overlays.geojson")
        try Data(fc.utf8).write(to: file)
        let out = d.appendingPathComponent("map.png").path
        // The pins' letters are drawn inside them (`marker-symbol`), as Mapbox draws them.
        #expect(fc.contains(#""marker-symbol":"a""#) && !fc.contains(#""label""#))
        let r = try cli.run([file.path, "--center", "48.85,2.33", "--zoom", "11", "--size", "300x200", "--no-cluster",
                             "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let byCLI = try Data(contentsOf: URL(fileURLWithPath: out))
        let job: [String: Any] = ["center": "48.85,2.33", "zoom": 11, "size": "300x200", "cluster": false,
                                  "data": try JSONSerialization.jsonObject(with: Data(fc.utf8))]
        let byPost = try LoopbackHTTP.request(port: server.port, "POST", "/render", body: try JSONSerialization.data(withJSONObject: job))
        #expect(byPost.status == 200, "\(byPost.text)")
        #expect(byURL.body == byCLI, "URL and CLI differ")
        #expect(byPost.body == byCLI, "POST and CLI differ")
    }

    @Test func sigtermFinishesTheRenderInFlight() throws {
        let server = try ServerProcess(["--jobs", "1", "--max-size", "8000", "--timeout", "60"])
        defer { server.stop() }
        let port = server.port
        // A large map in flight (about a second), then SIGTERM.
        nonisolated(unsafe) var answer: LoopbackHTTP.Answer?
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            answer = try? LoopbackHTTP.request(port: port, "/static/pin-s(1,1)/1,1,3/6000x6000.png", timeout: 60)
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.3)
        kill(server.process.processIdentifier, SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        // New connections are refused while the render finishes.
        let refused: Bool
        do {
            let a = try LoopbackHTTP.request(port: port, "/health", timeout: 2)
            refused = a.status >= 500
        } catch {
            refused = true
        }
        #expect(refused)
        done.wait()
        server.process.waitUntilExit()
        #expect(answer?.status == 200)
        #expect(answer.flatMap { LoopbackHTTP.pngSize($0.body) }.map { [$0.0, $0.1] } == [6000, 6000])
        #expect(server.process.terminationStatus == 0)
        let log = String(decoding: server.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains(" GET /static/pin-s(1,1)/1,1,3/6000x6000.png 200 "), "\(log)")
        #expect(log.contains("maprender serve: stopped"))
    }

    @Test func configFileAndHelp() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let yaml = d.appendingPathComponent("serve.yaml")
        try Data("port: 0\njobs: 1\ndata:\n  cities: \(TestPaths.repoFile("samples/world_cities.csv"))\nmax-size: 1000\n".utf8).write(to: yaml)
        let server = try ServerProcess(["--config", yaml.path, "--no-access-log"])
        defer { server.stop() }
        let a = try LoopbackHTTP.request(port: server.port, "/maps/cities/static/auto/300x200")
        #expect(a.status == 200, "\(a.text)")
        let big = try LoopbackHTTP.request(port: server.port, "/maps/cities/static/auto/1200x200")
        #expect(big.status == 400 && big.error?.contains("at most 1000 per side (--max-size)") == true)
        try Data("prot: 80\n".utf8).write(to: yaml)
        let bad = try cli.run(["serve", "--config", yaml.path])
        #expect(bad.status == 78 && bad.stderr.contains("prot: unknown key; did you mean 'port'?"), "\(bad.stderr)")
        // A port in use: exit 69, saying which.
        let taken = try cli.run(["serve", "--port", String(server.port)])
        #expect(taken.status == 69 && taken.stderr.contains("cannot serve on 127.0.0.1:\(server.port)"), "\(taken.stderr)")
        let badName = try cli.run(["serve", "--data", "../x=samples/world_cities.csv"])
        #expect(badName.status == 64 && badName.stderr.contains("--data: a name must be 1 to 64 letters, digits, '-', '_' or '.', got '../x'"), "\(badName.stderr)")
        let missing = try cli.run(["serve", "--data", "x=no/such.csv"])
        #expect(missing.status == 66 && missing.stderr.contains("cannot read no/such.csv: no such file"), "\(missing.stderr)")
        let badHosts = try cli.run(["serve", "--url-markers", "https://example.com"])
        #expect(badHosts.status == 64 && badHosts.stderr.contains("--url-markers: 'https://example.com'"), "\(badHosts.stderr)")
        let help = try cli.run(["serve", "--help"])
        for flag in ["--config", "--host", "--port", "--jobs", "--queue", "--timeout", "--max-connections", "--read-timeout",
                     "--max-url", "--max-body", "--max-points", "--max-size", "--cache-mb", "--max-age", "--data", "--style",
                     "--tiles", "--url-markers", "--no-access-log", "POST /render", "/metrics", "url-{URL}(lon,lat)"] {
            #expect(help.stdout.contains(flag), "\(flag)")
        }
    }
}
