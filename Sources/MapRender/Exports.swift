// The CLI and Swift programs import only MapRender; the core types come with it.
@_exported import MapRenderCore
@_exported import MapRenderTiles
