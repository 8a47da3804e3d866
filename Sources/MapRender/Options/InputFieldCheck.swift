import Foundation
import MapRenderCore

/// Options that name a property of the input (`label`, `label-priority`, `id-field`, the
/// `cluster-*` fields, and the properties a `filter` reads) must name one the input has:
/// otherwise the option would silently do nothing (no labels, every point filtered out).
/// Checked once the input is read, the same way for `render` and for each job of `batch`:
/// exit 64, naming the option, the property and the nearest existing one.
///
/// A property counts as present when any point has it. With no points there is nothing to
/// check. `["zoom"]` in a filter is refused when the filter is read (`FeatureFilter`).
enum InputFieldCheck {
    /// Throws for the first option naming a missing property; `filter` is the job's filter when
    /// it is applied apart from the request (batch).
    static func check(_ r: RenderRequest, filter: StyleExpression?, points: PointSet, shapes: ShapeSet = ShapeSet()) throws {
        guard points.count > 0 else { return }
        // `--label` also names lines and polygons: a property only they have counts for it.
        let present = Set(points.properties.names)
        let labelPresent = present.union(shapes.properties.names)
        var named: [(option: String, field: String)] = []
        if let f = r.inputOptions.idField { named.append(("id-field", f)) }
        if let l = r.pointLines {
            if !l.field.isEmpty { named.append(("line-by", l.field)) }
            if let o = l.orderBy { named.append(("order-by", o)) }
        }
        if let a = r.pointArcs { named.append(("to-lat", a.latField)); named.append(("to-lon", a.lonField)) }
        if case .expression(let e)? = r.pointCircles?.radius { for p in e.propertyNames { named.append(("circle-radius", p)) } }
        if let l = r.layout.labelField { named.append(("label", l)) }
        if let p = r.layout.labelPriority { named.append(("label-priority", p)) }
        for a in r.aggregates { named.append(("cluster-" + a.propertyName.prefix { $0 != "_" }, a.field)) }
        for p in (filter ?? r.filter)?.propertyNames ?? [] { named.append(("filter", p)) }
        // `--line-by` may name the id (a CSV column `id`, GeoJSON feature ids).
        let ids = points.ids.isEmpty ? [] : [r.inputOptions.idField ?? "id"]
        guard let missing = named.first(where: {
            !($0.option == "label" ? labelPresent : present).contains($0.field) && !($0.option == "line-by" && ids.contains($0.field))
        }) else { return }
        let all = allPropertyNames(r, read: present)
        let hint = KeySuggestion.closest(to: missing.field, among: all).map { "; did you mean '\($0)'?" }
            ?? (all.isEmpty ? "; it has no properties" : "; it has: \(all.prefix(30).joined(separator: ", "))")
        let source = r.inputs.isEmpty ? "the input" : r.inputs.joined(separator: ", ")
        throw MapRenderError(.usage, "\(missing.option) reads '\(missing.field)', which \(source) does not have\(hint)")
    }

    /// Every property of the inputs, for the hint. The render kept only the properties it needs,
    /// so files are read again without that limit (only on this error path); standard input
    /// cannot be, and gives the properties kept.
    static func allPropertyNames(_ r: RenderRequest, read: Set<String>) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        func add(_ n: String) { if seen.insert(n).inserted { names.append(n) } }
        for path in r.inputs where path != "-" {
            var o = r.inputOptions
            o.keepProperties = nil
            if let loaded = try? PointReader.read(path: path, options: o) { loaded.points.properties.names.forEach(add) }
        }
        read.sorted().forEach(add)
        return names
    }

    /// A warning for `--legend` when the style gives it nothing to show.
    static func legendWarning(_ r: RenderRequest) -> String? {
        guard r.layout.legend else { return nil }
        if let c = r.style.legendExpression?.colorCategories, !c.isEmpty { return nil }
        return "--legend: nothing to show: neither the style's marker fill nor a fill or line layer's colour is a match, step or interpolate expression of colours"
    }
}
