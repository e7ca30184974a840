/// A TOML table: keys in the order they were written, each with its value and the place
/// the key was written (for messages that point at a line).
///
/// Parse one with `TOMLTable(parsing:limits:)`.
public struct TOMLTable: Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        var value: TOMLValue
        var keyPosition: TOMLPosition
    }

    /// The keys, in the order they were written.
    public private(set) var keys: [String] = []
    private var entries: [String: Entry] = [:]

    /// An empty table.
    public init() {}

    public subscript(key: String) -> TOMLValue? { entries[key]?.value }

    /// Where `key` was written (for a table made by a header, the header's key).
    public func keyPosition(_ key: String) -> TOMLPosition? { entries[key]?.keyPosition }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Adds `key`; the parser has already refused duplicates.
    mutating func append(_ key: String, _ value: TOMLValue, keyPosition: TOMLPosition) {
        if entries.updateValue(Entry(value: value, keyPosition: keyPosition), forKey: key) == nil {
            keys.append(key)
        }
    }
}

extension TOMLTable: CustomStringConvertible {
    /// The table as an inline table: `{ a = 1, b = "x" }`.
    public var description: String {
        if keys.isEmpty { return "{}" }
        let pairs = keys.map { key in "\(TOMLTable.keyText(key)) = \(self[key]?.description ?? "")" }
        return "{ " + pairs.joined(separator: ", ") + " }"
    }

    /// A key as TOML writes it: bare when it can be, quoted otherwise.
    static func keyText(_ key: String) -> String {
        let bare = !key.isEmpty && key.utf8.allSatisfy { TOMLParser.isBareKeyByte($0) }
        return bare ? key : TOMLValue.quoted(key)
    }
}
