import FuzzSupport

/// An MBTiles file (an SQLite database image: metadata, the tiles table or view) opened read-only
/// and read for a world map at zoom 1; seeds are small valid databases (scripts/make-tile-fuzz-seeds).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FuzzInputs.tileset(bytes, count, ext: "mbtiles")
}

@_cdecl("fuzz_mbtiles_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
