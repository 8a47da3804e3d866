import MapRender

// The README's Swift example under "## Library use", copied verbatim between BEGIN and END, with the block's
// imports and no other (so the copy gets no name the README's program would lack).
// ReadmeSwiftExampleTests checks at test time that the copy and the
// imports are the README's block as it is now, so this file compiling means the example compiles.
// Paths are relative to the repository's root, where a reader of the README runs it.

func readmeLibraryUseExample() throws {
// BEGIN README ## Library use
var request = RenderRequest()
request.inputs = ["samples/world_cities.csv"]
request.basemaps = ["samples/ne_110m_admin_0_countries.geojson"]
request.layout.labelField = "name"
request.format = .svg
let result = try MapRenderer.render(request)     // result.data: the SVG bytes; result.summary
try MapRenderer.render(request, to: "map.svg")   // atomic write
// END README
    _ = result
}
