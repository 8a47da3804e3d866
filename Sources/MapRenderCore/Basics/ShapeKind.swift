/// Whether a path is filled (polygon, with holes) or stroked (line).
public enum ShapeKind: UInt8, Sendable { case polygon, line }
