import Testing
@testable import MapRenderCore

@Suite struct CalloutTests {
    /// A 28 px pin whose tip is at (100, 200): box 20 × 28, head centre (100, 182).
    let pin = Rect(x: 90, y: 172, width: 20, height: 28)
    let tip = (x: 100.0, y: 200.0)
    let head = (x: 100.0, y: 182.0)
    let top = (x: 100.0, y: 172.0)
    let text = TextSize(width: 80, height: 30)
    let image = Rect(x: 0, y: 0, width: 400, height: 400)

    @Test func aboveByDefaultWithItsGeometry() {
        let c = Callout.geometry(side: .above, anchor: top, pin: pin, text: text)
        // padding 6, pointer 8 long and 12 wide, radius 4
        #expect(c.box == Rect(x: 54, y: 122, width: 92, height: 42))
        #expect(c.pointer.count == 3)
        #expect(c.pointer[0] == (94, 164) && c.pointer[1] == (100, 172) && c.pointer[2] == (106, 164))
        #expect(c.textOrigin == (60, 128))
        #expect(c.cornerRadius == 4)
    }

    @Test func boxHoldsTheTextAndItsPadding() {
        var options = Callout.Options()
        for pad in [0.0, 6, 11] {
            options.padding = pad
            for side in Callout.Side.allCases {
                let c = Callout.geometry(side: side, anchor: head, pin: pin, text: text, bounds: image, options: options)
                let textBox = Rect(x: c.textOrigin.x, y: c.textOrigin.y, width: text.width, height: text.height)
                let padded = Rect(x: textBox.x - pad, y: textBox.y - pad, width: text.width + 2 * pad, height: text.height + 2 * pad)
                #expect(c.box.contains(padded) && padded.contains(c.box), "\(side), padding \(pad)")
            }
        }
    }

    @Test func pointerTipTouchesTheAnchor() {
        // Above, reaching for the pin's top.
        #expect(Callout.geometry(side: .above, anchor: top, pin: pin, text: text).tip == top)
        // Below, reaching for the pin's tip.
        #expect(Callout.geometry(side: .below, anchor: tip, pin: pin, text: text).tip == tip)
        // A bare point: every side touches it.
        for side in Callout.Side.allCases {
            #expect(Callout.geometry(side: side, anchor: head, pin: nil, text: text).tip == head)
        }
        // From the head, the tip moves out to the pin's edge on that side.
        #expect(Callout.geometry(side: .right, anchor: head, pin: pin, text: text).tip == (110, 182))
        #expect(Callout.geometry(side: .left, anchor: head, pin: pin, text: text).tip == (90, 182))
    }

    @Test func neverCoversItsOwnPin() {
        for anchor in [tip, head, top] {
            for side in Callout.Side.allCases {
                let c = Callout.geometry(side: side, anchor: anchor, pin: pin, text: text, bounds: image)
                #expect(!c.box.intersects(pin), "\(side) box covers the pin")
                #expect(!c.pointerBounds.intersects(pin), "\(side) pointer covers the pin")
            }
        }
    }

    /// Small obstacles at each side's centred box (a neighbour's pin or callout a few pixels in):
    /// the callout is still placed, its box slid along a side, its pointer's tip at the pin's
    /// edge and its base on the box's straight edge, covering no obstacle; centred boxes come first.
    @Test func slidesPastASmallObstacleOnEverySide() {
        // The centred boxes: above and below x 54...146; right and left y 151...193, from x 118 and to x 82.
        let blocks = [Rect(x: 140, y: 150, width: 10, height: 10), Rect(x: 140, y: 220, width: 10, height: 10),
                      Rect(x: 150, y: 185, width: 10, height: 10), Rect(x: 30, y: 185, width: 10, height: 10)]
        var free = CollisionIndex(width: 400, height: 400, bounds: image)
        let centred = Callout.place(anchor: top, pin: pin, text: text, index: &free)
        #expect(centred?.box == Callout.geometry(side: .above, anchor: top, pin: pin, text: text, bounds: image).box)

        var index = CollisionIndex(width: 400, height: 400, bounds: image)
        index.insert(contentsOf: blocks + [pin])
        for side in Callout.Side.allCases {
            let c = Callout.geometry(side: side, anchor: top, pin: pin, text: text, bounds: image)
            #expect(blocks.contains { $0.intersects(c.box) }, "\(side): the centred box is meant to be blocked")
        }
        guard let c = Callout.place(anchor: top, pin: pin, text: text, index: &index) else {
            Issue.record("no callout")
            return
        }
        #expect(!blocks.contains { $0.intersects(c.box) || $0.intersects(c.pointerBounds) })
        #expect(!c.box.intersects(pin) && !c.pointerBounds.intersects(pin))
        #expect(c.side == .above && c.tip == top)
        #expect(c.pointer[0].0 >= c.box.x + c.cornerRadius && c.pointer[2].0 <= c.box.maxX - c.cornerRadius)
    }

    /// Every side's centred box comes first; then the sides in order, each slid one way and the
    /// other: with every centred box and above's box slid left blocked, the callout goes above
    /// slid right, not below slid left (free too).
    @Test func slidBoxesAreTriedSideBySide() {
        var index = CollisionIndex(width: 400, height: 400, bounds: image)
        // Above: centred 54...146, slid left 18...110, slid right 90...182; below likewise.
        index.insert(contentsOf: [Rect(x: 60, y: 130, width: 10, height: 10), Rect(x: 140, y: 220, width: 10, height: 10),
                                  Rect(x: 150, y: 185, width: 10, height: 10), pin])
        for side in Callout.Side.allCases {
            let c = Callout.geometry(side: side, anchor: top, pin: pin, text: text, bounds: image)
            #expect(!index.canPlace(c.box) || !index.canPlace(c.pointerBounds), "\(side): the centred box is meant to be blocked")
        }
        let c = Callout.place(anchor: top, pin: pin, text: text, index: &index)
        #expect(c?.side == .above)
        #expect(c?.box == Callout.geometry(side: .above, anchor: top, pin: pin, text: text, bounds: image, shift: 1).box)
    }

    @Test func slidesAlongTheEdgeButKeepsThePointerOnIt() {
        // A pin near the left edge: the box slides right to stay in the image.
        let edgePin = Rect(x: 5, y: 172, width: 20, height: 28)
        let c = Callout.geometry(side: .above, anchor: (15, 172), pin: edgePin, text: text, bounds: image)
        #expect(c.box.x == 0)
        #expect(image.contains(c.box))
        // Hard against the corner: the pointer's base stays on the straight part of the edge.
        let corner = Callout.geometry(side: .above, anchor: (0, 172), pin: nil, text: text, bounds: image)
        #expect(corner.pointer[0].0 >= corner.box.x + corner.cornerRadius)
        #expect(corner.pointer[2].0 <= corner.box.maxX - corner.cornerRadius)
        #expect(corner.pointer[0].1 == corner.box.maxY && corner.pointer[2].1 == corner.box.maxY)
        // Right side near the bottom: slides up.
        let low = Callout.geometry(side: .right, anchor: (100, 380), pin: nil, text: text, bounds: image)
        #expect(low.box.maxY == 400)
        #expect(low.pointer[0].0 == low.box.x && low.pointer[2].0 == low.box.x)
    }

    @Test func placementTriesAboveBelowRightLeft() {
        func index(_ obstacles: [Rect], bounds: Rect? = Rect(x: 0, y: 0, width: 400, height: 400)) -> CollisionIndex {
            var i = CollisionIndex(width: 400, height: 400, bounds: bounds)
            i.insert(pin)
            for o in obstacles { i.insert(o) }
            return i
        }
        var i = index([])
        #expect(Callout.place(anchor: top, pin: pin, text: text, index: &i)?.side == .above)
        #expect(i.count == 3)   // pin, box, pointer
        // The same callout again is blocked by the first one above, and goes below.
        #expect(Callout.place(anchor: top, pin: pin, text: text, index: &i)?.side == .below)

        let aboveAndBelow = [Rect(x: 0, y: 100, width: 400, height: 60), Rect(x: 0, y: 210, width: 400, height: 60)]
        i = index(aboveAndBelow)
        #expect(Callout.place(anchor: head, pin: pin, text: text, index: &i)?.side == .right)
        // Left would leave the image, unless the edge is no obstacle.
        i = index(aboveAndBelow)
        #expect(Callout.place(anchor: head, pin: pin, text: text, index: &i, previous: .left)?.side == .right)
        i = index(aboveAndBelow, bounds: nil)
        #expect(Callout.place(anchor: head, pin: pin, text: text, index: &i, previous: .left)?.side == .left)
        i = index(aboveAndBelow + [Rect(x: 0, y: 150, width: 80, height: 60), Rect(x: 120, y: 150, width: 80, height: 60)])
        #expect(Callout.place(anchor: head, pin: pin, text: text, index: &i) == nil)
        var options = Callout.Options()
        options.allowOverlap = true
        #expect(Callout.place(anchor: head, pin: pin, text: text, index: &i, options: options)?.side == .above)
    }
}
