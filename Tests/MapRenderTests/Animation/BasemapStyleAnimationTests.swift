import Foundation
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// `maprender animate` over a vector basemap (`--basemap-style`): the style's layers are made once
/// per view and drawn under every frame; a frame at rest is the still map of its keyframe, to
/// the byte (basemap labels placed around the data's as on a still map).
@Suite struct BasemapStyleAnimationTests {
    @Test func framesAtRestAreTheStillMaps() throws {
        let dir = try AnimationTestData.tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        typealias Place = FramesAtRestTests.Place
        let a = [Place(id: 0, lon: 8.5, lat: 47.4), Place(id: 1, lon: 11.6, lat: 48.1), Place(id: 2, lon: 13.4, lat: 52.5)]
        let b = [Place(id: 0, lon: 9.2, lat: 48.8), Place(id: 1, lon: 12.4, lat: 47.8), Place(id: 3, lon: 7.0, lat: 50.9)]
        let paths = try FramesAtRestTests.writeKeyframes([a, b], in: dir)
        var r = AnimationRequest(source: .keyframes(paths), output: .inMemory(format: .png))
        r.base.width = 400; r.base.height = 300
        r.base.view = .center(lat: 50, lon: 10, zoom: 4.5)
        r.base.layout.labelField = "name"
        r.base.basemapStyle = try MapLibreStyle.load(path: TestPaths.repoFile("styles/basemap-light.json"))
        r.framesPerTransition = 4
        var rendered: [Int: Data] = [:]
        let result = try AnimationRenderer.render(r, onFrame: { k, d in rendered[k] = d })
        #expect(result.warnings.allSatisfy { !$0.contains("basemap style") }, "\(result.warnings)")
        for (j, path) in paths.enumerated() {
            var still = r.base
            still.inputs = [path]
            let expected = try MapRenderer.render(still)
            #expect(expected.scene.labels.count >= 8, "the still map names places of the basemap")
            #expect(rendered[j * 4] == expected.data, "keyframe \(j)")
        }
        // Between them the basemap is the same: every frame's fills and lines are the first frame's.
        let scenes = try AnimationRenderer.scenes(r)
        func shapes(_ s: Scene) -> [String] {
            s.items.compactMap { if case .shapes(let b) = $0 { "\(b.paint) \(b.coords.count) \(b.coords.first ?? 0)" } else { nil } }
        }
        let first = shapes(scenes[0].scene)
        #expect(first.count >= 3)
        for (k, s) in scenes.enumerated() { #expect(shapes(s.scene) == first, "frame \(k)") }
    }
}
