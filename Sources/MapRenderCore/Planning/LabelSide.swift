/// Where a label sits around its mark, in the order they are tried.
public enum LabelSide: UInt8, CaseIterable, Sendable {
    /// Right of the mark, vertically centred on the anchor box.
    case right
    /// Left of the mark, vertically centred on the anchor box.
    case left
    /// Above the mark, horizontally centred on the anchor box.
    case above
    /// Below the mark, horizontally centred on the anchor box.
    case below
    /// Right of the mark, its bottom on the anchor box's top.
    case topRight
    /// Left of the mark, its bottom on the anchor box's top.
    case topLeft
    /// Right of the mark, its top on the anchor box's bottom.
    case bottomRight
    /// Left of the mark, its top on the anchor box's bottom.
    case bottomLeft
}
