/// Longitudes folded back onto the map's one world.
public enum Longitude {
    /// `degrees` folded by whole turns into -180...180.
    ///
    /// Values already in -180...180 come back unchanged (bit for bit), so both edges of the
    /// antimeridian survive: -180 stays -180 (a west edge) and 180 stays 180 (an east edge). A value
    /// outside folds to the same side it leaves from: 190 → -170, 540 → 180, -540 → -180.
    ///
    /// ```swift
    /// Longitude.fold(190)   // -170
    /// Longitude.fold(180)   // 180
    /// ```
    @inline(__always)
    public static func fold(_ degrees: Double) -> Double {
        if degrees >= -180 && degrees <= 180 { return degrees }
        // truncatingRemainder is exact; the one step after it is exact too (Sterbenz).
        var l = degrees.truncatingRemainder(dividingBy: 360)
        if l > 180 { l -= 360 } else if l < -180 { l += 360 }
        return l
    }
}
