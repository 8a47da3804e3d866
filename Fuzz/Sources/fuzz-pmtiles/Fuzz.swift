import FuzzSupport

/// A PMTiles file (header, root and leaf directories, gzip, tile offsets) opened and read for a
/// world map at zoom 1; seeds are small valid archives (Fuzz/Corpus/pmtiles, made by
/// scripts/make-tile-fuzz-seeds) and the hostile shapes of issue 45.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FuzzInputs.tileset(bytes, count, ext: "pmtiles")
}

@_cdecl("fuzz_pmtiles_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
