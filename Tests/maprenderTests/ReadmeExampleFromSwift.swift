import Foundation
import MapRender

// The README's Swift example under "#### From Swift", copied verbatim between BEGIN and END, with the block's
// imports and no other (so the copy gets no name the README's program would lack).
// ReadmeSwiftExampleTests checks at test time that the copy and the
// imports are the README's block as it is now, so this file compiling means the example compiles.
// Paths are relative to the repository's root, where a reader of the README runs it.

func readmeFromSwiftExample() throws {
// BEGIN README #### From Swift
// One map: bytes (PNG, SVG or PDF), no process, safe to call from many threads at once.
var request = RenderRequest()
request.inputs = ["samples/world_cities.csv"]
request.width = 800; request.height = 600
let png: Data = try MapRenderer.render(request).data

// Many maps:
let manifest = try BatchManifest.load(path: "maps.yaml")
var options = BatchOptions()
options.workers = 4
let report = BatchRunner.run(manifest, options: options) { event in
    if case .finished(let job, _) = event, job.status == .failed { print(job.output, job.error ?? "") }
}
// END README
    _ = (png, report)
}
