import CCairo
import Foundation

/// The fonts maprender draws with by default: only those scripts/setup installs (DejaVu, Droid
/// Sans Fallback, WenQuanYi Zen Hei, Lohit Devanagari), so a map is byte-identical on every machine
/// with those packages, whatever else is installed there (a font a user added can otherwise win a
/// glyph: 東京 came out of another CJK font on one machine).
///
/// How: one fontconfig configuration built in memory from `xml` (FcConfigCreate,
/// FcConfigParseAndLoadFromMemory, FcConfigBuildFonts) and handed to each Pango font map with
/// `pango_fc_font_map_set_config`, rather than pointing the FONTCONFIG_FILE variable at a file:
/// - nothing process-wide changes: no environment variable that child processes would inherit,
///   no setenv racing a thread that reads the environment, no file to write in a temporary folder;
/// - it holds for programs that use the MapRender library, not only for the CLI;
/// - each render chooses (`RenderRequest.systemFonts`, `--system-fonts`), so a batch can mix both.
///
/// A user who sets FONTCONFIG_FILE has chosen a configuration: it is used, as with `--system-fonts`.
/// (The tests set it to Tests/fonts.conf, which names the same fonts as `xml`, so both give the same bytes.)
public enum PinnedFonts {
    /// The families of the pinned fonts, for messages.
    public static let families = ["DejaVu Sans", "Droid Sans Fallback", "WenQuanYi Zen Hei", "Lohit Devanagari"]

    /// Only the set-up's font folders; sans-serif and DejaVu Sans fall back through the other
    /// three for the scripts DejaVu lacks. Caches go where fontconfig's own do (read-only system
    /// cache, then the user's); they only speed up start-up, never change a glyph.
    static let xml = """
    <?xml version="1.0"?>
    <!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
    <fontconfig>
      <dir>/usr/share/fonts/truetype/dejavu</dir>
      <dir>/usr/share/fonts/truetype/droid</dir>
      <dir>/usr/share/fonts/truetype/wqy</dir>
      <dir>/usr/share/fonts/truetype/lohit-devanagari</dir>
      <cachedir>/var/cache/fontconfig</cachedir>
      <cachedir prefix="xdg">fontconfig</cachedir>
      <alias binding="same"><family>sans-serif</family><prefer><family>DejaVu Sans</family><family>Droid Sans Fallback</family><family>WenQuanYi Zen Hei</family><family>Lohit Devanagari</family></prefer></alias>
      <alias binding="same"><family>DejaVu Sans</family><accept><family>Droid Sans Fallback</family><family>WenQuanYi Zen Hei</family><family>Lohit Devanagari</family></accept></alias>
      <config><rescan><int>0</int></rescan></config>
    </fontconfig>
    """

    /// The user's FONTCONFIG_FILE, if set: then the machine's configuration is used.
    public static var userConfigurationFile: String? {
        guard let v = getenv("FONTCONFIG_FILE"), v.pointee != 0 else { return nil }
        return String(cString: v)
    }

    /// The pinned configuration, built once (fontconfig configurations are reference-counted and
    /// safe to share between font maps on different threads once built); nil when FONTCONFIG_FILE
    /// is set or when it cannot be built (then the machine's fonts are used, as before pinning).
    nonisolated(unsafe) static let config: OpaquePointer? = {
        guard userConfigurationFile == nil, let c = FcConfigCreate() else { return nil }
        guard FcConfigParseAndLoadFromMemory(c, xml, 1) != 0, FcConfigBuildFonts(c) != 0 else {
            FcConfigDestroy(c)
            return nil
        }
        return c
    }()

    /// Generic names that fontconfig resolves by rule rather than by an installed family.
    static let genericFamilies: Set<String> = ["sans-serif", "sans", "serif", "monospace", "mono", "cursive",
                                               "fantasy", "system-ui", "emoji", "math"]

    /// Whether `family` is a font family of `config` (nil: the machine's), or a generic name.
    static func isAvailable(_ family: String, config: OpaquePointer?) -> Bool {
        if genericFamilies.contains(family.lowercased()) { return true }
        guard let pattern = FcPatternCreate() else { return true }
        defer { FcPatternDestroy(pattern) }
        guard let objects = FcObjectSetCreate() else { return true }
        defer { FcObjectSetDestroy(objects) }
        FcPatternAddString(pattern, "family", family)
        FcObjectSetAdd(objects, "family")
        guard let set = FcFontList(config, pattern, objects) else { return true }
        defer { FcFontSetDestroy(set) }
        return set.pointee.nfont > 0
    }
}
