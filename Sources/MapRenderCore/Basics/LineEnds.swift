/// How a stroked line ends (MapLibre's `line-cap`).
public enum LineCap: String, Sendable, CaseIterable { case butt, round, square }

/// How a stroked line turns a corner (MapLibre's `line-join`).
public enum LineJoin: String, Sendable, CaseIterable { case bevel, round, miter }
