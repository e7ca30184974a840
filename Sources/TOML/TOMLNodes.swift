/// The tables of a document while it is being parsed. TOML lets a later `[header]` add to
/// a table made earlier, so tables are built as shared nodes and frozen into `TOMLTable`
/// values at the end. Inline tables and arrays are values from the moment they close:
/// nothing may add to them, and as values nothing can.
final class TableNode {
    /// How the table came to exist, which decides what may still add to it.
    enum Origin {
        /// Named on the way to a deeper `[a.b]` header: `[a]` may still define it once.
        case implicit
        /// Defined by a `[header]` or a `[[header]]` element.
        case header
        /// Made by a dotted key (`a.b = 1`): only more dotted keys of its section may add to it.
        case dotted
        /// The root of an inline table being parsed.
        case inline
    }

    enum Item {
        case value(TOMLValue)
        case table(TableNode)
        case tables(TableArrayNode)
    }

    struct Slot {
        var item: Item
        var keyPosition: TOMLPosition
    }

    var origin: Origin
    var position: TOMLPosition
    /// Levels below the document root.
    let depth: Int
    private(set) var order: [String] = []
    private(set) var slots: [String: Slot] = [:]

    init(origin: Origin, position: TOMLPosition, depth: Int) {
        self.origin = origin
        self.position = position
        self.depth = depth
    }

    subscript(key: String) -> Slot? { slots[key] }

    func add(_ key: String, _ item: Item, at keyPosition: TOMLPosition) {
        if slots.updateValue(Slot(item: item, keyPosition: keyPosition), forKey: key) == nil { order.append(key) }
    }

    /// The table as a value. Recursion is bounded by the parser's depth limit.
    func freeze() -> TOMLTable {
        var table = TOMLTable()
        for key in order {
            guard let slot = slots[key] else { continue }
            let value: TOMLValue
            switch slot.item {
            case .value(let v): value = v
            case .table(let node): value = TOMLValue(.table(node.freeze()), at: node.position)
            case .tables(let array):
                value = TOMLValue(.array(array.tables.map { TOMLValue(.table($0.freeze()), at: $0.position) }),
                                  at: array.position)
            }
            table.append(key, value, keyPosition: slot.keyPosition)
        }
        return table
    }
}

/// An array of tables (`[[name]]`) being parsed: each header appends a table.
final class TableArrayNode {
    let position: TOMLPosition
    var tables: [TableNode] = []

    init(position: TOMLPosition) {
        self.position = position
    }
}
