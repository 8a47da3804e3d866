import Foundation
import Testing

/// Fonts pinned by default: maprender draws with its own fontconfig configuration (DejaVu, Droid
/// Sans Fallback, WenQuanYi Zen Hei, Lohit Devanagari), so a font the machine gains changes nothing
/// unless `--system-fonts`.
@Suite struct PinnedFontsCLITests {
    let cli = CLITests()

    /// Runs the binary with FONTCONFIG_FILE removed (the tests set it) and `env` added.
    func run(_ args: [String], env: [String: String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = CLITests.binary
        p.arguments = args
        p.currentDirectoryURL = CLITests.repo
        var e = ProcessInfo.processInfo.environment
        e["FONTCONFIG_FILE"] = nil
        e.merge(env) { $1 }
        p.environment = e
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// A user font configuration (read by the machine's /etc/fonts/fonts.conf from
    /// $XDG_CONFIG_HOME/fontconfig/fonts.conf) that installs an extra font, a copy of DejaVu Serif
    /// renamed "Extra Test Serif" as it is scanned, and prefers it to every family asked for.
    func machineWithAnExtraFont(_ home: URL) throws -> [String: String] {
        let fonts = home.appendingPathComponent("fonts"), conf = home.appendingPathComponent("config/fontconfig")
        try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: conf, withIntermediateDirectories: true)
        let font = fonts.appendingPathComponent("extra.ttf")
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", toPath: font.path)
        try Data("""
        <?xml version="1.0"?>
        <!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
        <fontconfig>
          <dir>\(fonts.path)</dir>
          <cachedir>\(home.appendingPathComponent("cache").path)</cachedir>
          <match target="scan">
            <test name="file"><string>\(font.path)</string></test>
            <edit name="family" mode="assign" binding="same"><string>Extra Test Serif</string></edit>
          </match>
          <match target="pattern">
            <edit name="family" mode="prepend" binding="strong"><string>Extra Test Serif</string></edit>
          </match>
        </fontconfig>
        """.utf8).write(to: conf.appendingPathComponent("fonts.conf"))
        return ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path]
    }

    @Test func anExtraFontChangesNothingUnlessSystemFonts() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let map = ["samples/capitals.csv", "--label", "name", "--size", "600x300", "--no-cluster"]
        func out(_ name: String) -> String { d.appendingPathComponent(name).path }
        func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: out(name))) }
        let empty = d.appendingPathComponent("empty-home")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let plain = ["XDG_CONFIG_HOME": empty.path, "XDG_CACHE_HOME": empty.appendingPathComponent("cache").path]
        let extra = try machineWithAnExtraFont(d.appendingPathComponent("home"))

        #expect(try run(map + ["-o", out("pinned.png")], env: plain).status == 0)
        let withExtra = try run(map + ["-o", out("pinned-extra.png")], env: extra)
        #expect(withExtra.status == 0, "\(withExtra.stderr)")
        #expect(try bytes("pinned.png") == bytes("pinned-extra.png"), "the extra font changed a pinned render")
        // The pinned fonts are those of Tests/fonts.conf, which the other tests use.
        #expect(try run(map + ["-o", out("tests-conf.png")], env: ["FONTCONFIG_FILE": CLITests.repo.appendingPathComponent("Tests/fonts.conf").path]).status == 0)
        #expect(try bytes("pinned.png") == bytes("tests-conf.png"))
        // The machine's fonts, extra font included, give another picture: the test would see it.
        #expect(try run(map + ["-o", out("system-extra.png"), "--system-fonts"], env: extra).status == 0)
        #expect(try bytes("system-extra.png") != bytes("pinned.png"))
    }

    @Test func aMissingFamilyIsAWarningNamingIt() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let style = d.appendingPathComponent("style.json")
        try Data(#"{"label": {"font": "No Such Font Family"}}"#.utf8).write(to: style)
        let r = try run(["samples/capitals.csv", "--label", "name", "--style", style.path, "-o", d.appendingPathComponent("m.png").path],
                        env: [:])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("maprender: warning: font family 'No Such Font Family' is not among maprender's fonts"), "\(r.stderr)")
        // The default style's fonts are all there: no font warning.
        let ok = try run(["samples/capitals.csv", "--label", "name", "-o", d.appendingPathComponent("n.png").path], env: [:])
        #expect(!ok.stderr.contains("font family"), "\(ok.stderr)")
    }
}
