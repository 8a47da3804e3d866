import Foundation
import Testing
@testable import MapRender

/// `--shard I/N` and the shard taken from Kubernetes and Slurm variables.
@Suite struct BatchShardTests {
    @Test func parses() throws {
        #expect(try BatchShard.parse("0/4") == BatchShard(index: 0, count: 4))
        #expect(try BatchShard.parse("3/4").description == "3/4")
        for bad in ["4/4", "-1/3", "1", "a/b", "1/0", "1/2/3"] {
            #expect(throws: MapRenderError.self) { try BatchShard.parse(bad) }
        }
    }

    @Test func resolvesByTheDocumentedRule() throws {
        func shard(_ arg: String? = nil, count: Int? = nil, env: [String: String] = [:]) throws -> String? {
            try BatchShard.resolve(argument: arg, count: count, environment: env)?.description
        }
        #expect(try shard() == nil)
        #expect(try shard("1/3") == "1/3")
        // The argument wins over the environment.
        #expect(try shard("1/3", env: ["JOB_COMPLETION_INDEX": "2"]) == "1/3")
        // Kubernetes Indexed Job: 0-based index, count from --shard-count.
        #expect(try shard(count: 5, env: ["JOB_COMPLETION_INDEX": "4"]) == "4/5")
        #expect(throws: MapRenderError.self) { try shard(env: ["JOB_COMPLETION_INDEX": "0"]) }
        #expect(throws: MapRenderError.self) { try shard(count: 5, env: ["JOB_COMPLETION_INDEX": "5"]) }
        // Slurm: --array=0-3 and --array=1-4 both give shards 0...3 of 4; --array=0-12:4 too.
        #expect(try shard(env: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"]) == "0/4")
        #expect(try shard(env: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"]) == "3/4")
        #expect(try shard(env: ["SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "4",
                           "SLURM_ARRAY_TASK_COUNT": "4"]) == "2/4")
        #expect(try shard(count: 2, env: ["SLURM_ARRAY_TASK_ID": "1"]) == "1/2")
        #expect(throws: MapRenderError.self) { try shard(env: ["SLURM_ARRAY_TASK_ID": "1"]) }
        #expect(throws: MapRenderError.self) { try shard(env: ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"]) }
        // A count with no index, or disagreeing with --shard, is a mistake.
        #expect(throws: MapRenderError.self) { try shard(count: 3) }
        #expect(throws: MapRenderError.self) { try shard("1/3", count: 4) }
    }

    @Test(arguments: [1, 2, 3, 7])
    func shardsCoverEveryJobExactlyOnce(n: Int) throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("pts.csv", "name,lat,lon\nA,48.85,2.35\nB,52.52,13.40\nC,41.90,12.50\n")
        let jobs = (0..<10).map { #"{ "output": "out/\#($0).png" }"# }.joined(separator: ",")
        let text = #"{ "defaults": { "input": "pts.csv", "size": "40x30", "cluster": false }, "jobs": [\#(jobs)] }"#
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        var rendered: [Int] = []
        for i in 0..<n {
            var options = BatchOptions()
            options.shard = try BatchShard(index: i, count: n)
            let report = BatchRunner.run(manifest, options: options)
            #expect(report.failed == 0)
            #expect(report.shard == "\(i)/\(n)")
            #expect(report.jobs.allSatisfy { $0.index % n == i })
            rendered += report.jobs.map(\.index)
        }
        #expect(rendered.sorted() == Array(0..<10))
        for k in 0..<10 { #expect(FileManager.default.fileExists(atPath: dir.file("out/\(k).png"))) }
    }
}
