/// The shape of a marker as the backends draw it. A pin's anchor (its tip) is the point; a
/// circle's or square's is its centre. The style chooses one by name (`"marker": {"shape": "pin"}`).
public enum MarkerShape: String, Sendable, CaseIterable {
    case pin, circle, square
}
