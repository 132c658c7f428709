import Repository

/// A random edit that the list in `outline` accepts (mostly): sections added, moved, renamed and
/// deleted, rows added, updated, deleted and moved within and across sections.
package func randomEdit(_ outline: ListOutline, step: Int, using generator: inout SeededGenerator) -> Edit {
    if outline.sections.isEmpty || Int.random(in: 0..<8, using: &generator) == 0 {
        return .addSection(title: "S\(step)", at: Int.random(in: 0...outline.sections.count, using: &generator))
    }
    let section = outline.sections.randomElement(using: &generator)!
    switch Int.random(in: 0..<8, using: &generator) {
    case 0, 1, 2:
        return .addRow(
            RowContent(kind: .field, title: "r\(step)", value: Bool.random(using: &generator) ? "v" : nil),
            to: .at(section.index, Int.random(in: 0...section.rowCount, using: &generator)))
    case 3 where section.rowCount > 0:
        return .deleteRow(.at(section.index, Int.random(in: 0..<section.rowCount, using: &generator)))
    case 4 where section.rowCount > 0:
        let target = outline.sections.randomElement(using: &generator)!
        let others = target.rowCount - (target.id == section.id ? 1 : 0)
        return .moveRow(
            .at(section.index, Int.random(in: 0..<section.rowCount, using: &generator)),
            to: .at(target.index, Int.random(in: 0...others, using: &generator)))
    case 5 where section.rowCount > 0:
        return .updateRow(.at(section.index, Int.random(in: 0..<section.rowCount, using: &generator)), title: "u\(step)", value: .set("w"))
    case 6:
        return .deleteSection(.index(section.index), force: true)
    default:
        return .moveSection(.index(section.index), to: Int.random(in: 0..<outline.sections.count, using: &generator))
    }
}
