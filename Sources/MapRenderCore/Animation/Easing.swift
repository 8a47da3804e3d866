/// How animation time maps to progress: `apply(t)` takes t in 0...1 and returns progress in 0...1.
///
/// Every easing is monotonic (never goes back), starts at 0 and ends at 1.
///
/// ```swift
/// let e = Easing(rawValue: "ease-in-out")!   // the names `--easing` accepts
/// e.apply(0.5)                               // 0.5
/// ```
public enum Easing: String, CaseIterable, Sendable {
    /// Constant speed.
    case linear
    /// The CSS `ease-in-out` timing function, `cubic-bezier(0.42, 0, 0.58, 1)`: a gentle start
    /// and end (peak speed about 1.7× the average).
    case easeInOut = "ease-in-out"
    /// Ease-in-out cubic: `4t³` for the first half, mirrored for the second (peak speed 3× the
    /// average; a stronger start and stop than `ease-in-out`).
    case cubic

    /// Progress at time `t`; `t` is clamped to 0...1.
    public func apply(_ t: Double) -> Double {
        let t = Swift.min(Swift.max(t.isNaN ? 0 : t, 0), 1)
        switch self {
        case .linear:
            return t
        case .easeInOut:
            return Self.cssCubicBezier(x: t, x1: 0.42, y1: 0, x2: 0.58, y2: 1)
        case .cubic:
            if t < 0.5 { return 4 * t * t * t }
            let u = -2 * t + 2
            return 1 - u * u * u / 2
        }
    }

    /// The largest slope of `apply` (progress per unit of time), for bounding per-frame steps.
    public var maxSpeed: Double {
        switch self {
        case .linear: return 1
        // dY/dX of cubic-bezier(0.42, 0, 0.58, 1) at its midpoint s = 0.5: Y'(s) = 1.5, X'(s) = 0.87.
        case .easeInOut: return 1.5 / 0.87
        case .cubic: return 3
        }
    }

    // MARK: CSS cubic-bezier

    /// A CSS cubic Bézier timing function through (0,0), (x1,y1), (x2,y2), (1,1): finds the
    /// curve parameter s with X(s) = x (Newton's method, bisection as the fallback), returns Y(s).
    static func cssCubicBezier(x: Double, x1: Double, y1: Double, x2: Double, y2: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        // Polynomial coefficients of B(s) = ((a s + b) s + c) s.
        let cx = 3 * x1, bx = 3 * (x2 - x1) - cx, ax = 1 - cx - bx
        let cy = 3 * y1, by = 3 * (y2 - y1) - cy, ay = 1 - cy - by
        func curveX(_ s: Double) -> Double { ((ax * s + bx) * s + cx) * s }
        func curveY(_ s: Double) -> Double { ((ay * s + by) * s + cy) * s }
        func slopeX(_ s: Double) -> Double { (3 * ax * s + 2 * bx) * s + cx }

        var s = x
        for _ in 0..<8 {
            let err = curveX(s) - x
            if abs(err) < 1e-12 { return curveY(s) }
            let d = slopeX(s)
            if abs(d) < 1e-9 { break }
            s -= err / d
        }
        // Bisection: X is monotonic in s for x1, x2 in 0...1.
        var lo = 0.0, hi = 1.0
        s = x
        for _ in 0..<60 {
            let v = curveX(s)
            if abs(v - x) < 1e-12 { break }
            if v < x { lo = s } else { hi = s }
            s = (lo + hi) / 2
        }
        return curveY(s)
    }
}
