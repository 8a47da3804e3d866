import Foundation
import MapRenderServe
import Testing
import TestSupport
import Yams

/// The README's section on `maprender serve`: its command starts a server, each of its requests
/// gets a map (the first one the picture the README shows, byte for byte), its configuration file
/// loads, and its Kubernetes manifests parse and run the image the README builds.
@Suite(.serialized) struct ServeReadmeTests {
    static let heading = "### A static map service: `maprender serve`"
    typealias Deployment = ReadmeDeploymentTests

    /// The section's ```sh commands, continuation lines joined.
    static func commands() throws -> [String] {
        let block = try #require(try Deployment.blocks("sh", in: heading).first)
        return block.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").map(String.init)
    }

    /// Shell words (single quotes only, as the README writes them).
    static func words(_ line: String) -> [String] {
        var out: [String] = [], cur = "", quoted = false, any = false
        for ch in line {
            if ch == "'" { quoted.toggle(); any = true; continue }
            if ch == " " && !quoted { if any || !cur.isEmpty { out.append(cur) }; cur = ""; any = false; continue }
            cur.append(ch)
        }
        if any || !cur.isEmpty { out.append(cur) }
        return out
    }

    @Test func theSectionsRequestsGetMaps() throws {
        let lines = try Self.commands()
        let start = try #require(lines.first { $0.hasPrefix("maprender serve ") })
        var args = Array(Self.words(start).dropFirst(2))
        let p = try #require(args.firstIndex(of: "--port"))
        args.remove(at: p + 1); args.remove(at: p)
        let server = try ServeCLITests.ServerProcess(args + ["--no-access-log"])
        defer { server.stop() }
        var seen = 0
        for line in lines where line.hasPrefix("curl ") {
            let w = Self.words(line)
            let url = try #require(w.first { $0.hasPrefix("http://127.0.0.1:8080/") })
            let path = String(url.dropFirst("http://127.0.0.1:8080".count))
            let output = try #require(w.firstIndex(of: "-o").map { w[$0 + 1] })
            // The shell leaves \n in single quotes as it is: JSON reads it as a newline.
            let jsonBody = w.firstIndex(of: "--data").map { Data(w[$0 + 1].utf8) }
            let a = try LoopbackHTTP.request(port: server.port, jsonBody == nil ? "GET" : "POST", path, body: jsonBody)
            #expect(a.status == 200, "\(line): \(a.text.prefix(300))")
            if output.hasSuffix(".png") { #expect(LoopbackHTTP.pngSize(a.body) != nil, "\(line)") }
            if output.hasSuffix(".svg") { #expect(a.text.contains("<svg"), "\(line)") }
            if output == "serve-paris.png" {
                let file = URL(fileURLWithPath: TestPaths.repoFile("docs/images/serve-paris.png"))
                if ProcessInfo.processInfo.environment["MAPRENDER_RECORD"] == "1" {
                    try a.body.write(to: file)
                } else {
                    #expect(a.body == (try Data(contentsOf: file)), "the README's picture is not what the server draws: MAPRENDER_RECORD=1 rewrites it")
                }
            }
            seen += 1
        }
        #expect(seen == 3)
    }

    @Test func theConfigurationFileLoads() throws {
        let yaml = try #require(try Deployment.blocks("yaml", in: Self.heading).first { $0.hasPrefix("# serve.yaml") })
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("serve-readme-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        for folder in ["samples", "styles"] {
            try FileManager.default.createSymbolicLink(at: d.appendingPathComponent(folder), withDestinationURL: TestPaths.repo.appendingPathComponent(folder))
        }
        let file = d.appendingPathComponent("serve.yaml")
        try Data(yaml.utf8).write(to: file)
        let c = try ServeConfiguration.load(path: file.path)
        #expect(c.host == "0.0.0.0" && c.port == 8080 && c.jobs == 2 && c.maxSize == 2048 && c.cacheBytes == 256 << 20)
        #expect(c.data["cities"] == d.appendingPathComponent("samples/world_cities.csv").path)
        _ = try MapService(configuration: c)   // every named file readable, the style valid
    }

    @Test func kubernetesDeploymentServiceAndAutoscaler() throws {
        let yaml = try #require(try Deployment.blocks("yaml", in: Self.heading).first { $0.hasPrefix("# maprender-serve.yaml") })
        let docs = try Yams.load_all(yaml: yaml).map { try #require(Deployment.mapping($0)) }
        #expect(docs.map { $0["kind"] as? String } == ["Deployment", "Service", "HorizontalPodAutoscaler"])
        let pod = try #require(Deployment.mapping(Deployment.mapping(Deployment.mapping(docs[0]["spec"])?["template"])?["spec"]))
        let container = try #require((pod["containers"] as? [Any])?.compactMap(Deployment.mapping).first)
        #expect(container["image"] as? String == (try Deployment.builtImage()))
        let command = try #require(container["command"] as? [String])
        #expect(Array(command.prefix(2)) == ["maprender", "serve"])
        let port = try #require(command.firstIndex(of: "--port").map { Int(command[$0 + 1]) } ?? nil)
        let probe = try #require(Deployment.mapping(Deployment.mapping(container["readinessProbe"])?["httpGet"]))
        #expect(probe["path"] as? String == "/health" && probe["port"] as? Int == port)
        let service = try #require(Deployment.mapping(docs[1]["spec"]))
        #expect((service["ports"] as? [Any])?.compactMap(Deployment.mapping).first?["targetPort"] as? Int == port)
        let target = try #require(Deployment.mapping(Deployment.mapping(docs[2]["spec"])?["scaleTargetRef"]))
        #expect(target["kind"] as? String == "Deployment" && target["name"] as? String == "maprender")
        // The container's command runs (on a free port) and answers its probe.
        var args = Array(command.dropFirst(2))
        let p = try #require(args.firstIndex(of: "--port"))
        args.remove(at: p + 1); args.remove(at: p)
        if let h = args.firstIndex(of: "--host") { args[h + 1] = "127.0.0.1" }
        let server = try ServeCLITests.ServerProcess(args)
        defer { server.stop() }
        #expect(try LoopbackHTTP.request(port: server.port, "/health").status == 200)
    }
}
