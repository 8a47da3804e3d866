import Testing
@testable import MapRenderCore

@Suite struct LongitudeTests {
    @Test func bothEdgesOfTheAntimeridianStay() {
        #expect(Longitude.fold(180) == 180)
        #expect(Longitude.fold(-180) == -180)
        #expect(Longitude.fold(0) == 0)
        #expect(Longitude.fold(179.999) == 179.999)
    }

    @Test func valuesOutsideFoldByWholeTurns() {
        #expect(Longitude.fold(190) == -170)
        #expect(Longitude.fold(-190) == 170)
        #expect(Longitude.fold(360) == 0)
        #expect(Longitude.fold(540) == 180)
        #expect(Longitude.fold(-540) == -180)
        #expect(Longitude.fold(180.5) == -179.5)
        #expect(Longitude.fold(-180.5) == 179.5)
        #expect(Longitude.fold(725) == 5)
    }

    @Test func inRangeValuesComeBackBitForBit() {
        for lon in stride(from: -180.0, through: 180, by: 0.37) {
            #expect(Longitude.fold(lon).bitPattern == lon.bitPattern)
        }
    }
}
