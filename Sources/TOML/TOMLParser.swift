extension TOMLTable {
    /// Parses a TOML document. Every input gives a table or a `TOMLError` with its line,
    /// column and reason; nothing traps. Within `limits`, time and memory grow with the
    /// text's length and recursion with its nesting.
    public init(parsing bytes: some Collection<UInt8>, limits: TOMLLimits = TOMLLimits()) throws(TOMLError) {
        guard bytes.count <= limits.maxBytes else {
            throw TOMLError("the text is \(bytes.count) bytes; at most \(limits.maxBytes) are accepted",
                            at: TOMLPosition(line: 1, column: 1))
        }
        var parser = TOMLParser(Array(bytes), limits: limits)
        self = try parser.document()
    }

    /// Parses a TOML document held in a string (see `init(parsing:limits:)` for bytes).
    public init(parsing text: String, limits: TOMLLimits = TOMLLimits()) throws(TOMLError) {
        try self.init(parsing: text.utf8, limits: limits)
    }
}

/// A TOML 1.0 parser over UTF-8 bytes, written for untrusted text: every byte is read
/// through a bounds-checked `peek`, numbers are built with overflow checks, nesting is
/// bounded. From TOML 1.1 it also takes inline tables over several lines with a trailing
/// comma and the `\e` escape. Offset dates and date-times are refused with a reason.
struct TOMLParser {
    let bytes: [UInt8]
    let limits: TOMLLimits
    var index = 0
    var line = 1
    /// Byte offset where the current line starts (for columns).
    var lineStart = 0
    let root: TableNode
    /// The table that key/value lines go to: the last `[header]`'s.
    var current: TableNode
    /// The column of the last position asked for (a reference: `position` is not mutating).
    let columns = ColumnMark()

    init(_ bytes: [UInt8], limits: TOMLLimits) {
        self.bytes = bytes
        self.limits = limits
        root = TableNode(origin: .header, position: TOMLPosition(line: 1, column: 1), depth: 0)
        current = root
    }

    // MARK: The cursor

    func peek(_ offset: Int = 0) -> UInt8? {
        let at = index &+ offset
        return at >= 0 && at < bytes.count ? bytes[at] : nil
    }

    mutating func advance(_ count: Int = 1) {
        index = min(index &+ count, bytes.count)
    }

    /// The position of byte `offset` (the current one by default) on the current line.
    /// Columns are counted on from the last position asked for on the line, so the places
    /// of the many values of one long line cost no more than reading it.
    func position(_ offset: Int? = nil) -> TOMLPosition {
        let at = max(lineStart, min(offset ?? index, bytes.count))
        var i = lineStart, column = 1
        if columns.line == line && columns.index >= lineStart && columns.index <= at {
            i = columns.index
            column = columns.column
        }
        while i < at {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        columns.line = line
        columns.index = at
        columns.column = column
        return TOMLPosition(line: line, column: column)
    }

    func failure(_ reason: String, at position: TOMLPosition? = nil) -> TOMLError {
        TOMLError(reason, at: position ?? self.position())
    }

    /// What is at the cursor, for messages: `'x'`, "the end of the line", "the end of the text".
    func found() -> String {
        guard let byte = peek() else { return "the end of the text" }
        if byte == 0x0A || byte == 0x0D { return "the end of the line" }
        if byte == 0x09 { return "a tab" }
        if byte < 0x20 || byte == 0x7F { return "a control character (U+\(Self.hex(UInt32(byte), digits: 4)))" }
        if byte < 0x80 { return "'\(Character(Unicode.Scalar(byte)))'" }
        // The text is valid UTF-8 (checked first): decode the one scalar here.
        var end = index + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 && end - index < 4 { end += 1 }
        return "'" + String(decoding: bytes[index..<end], as: UTF8.self) + "'"
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x5F || byte == 0x2D
    }

    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 { advance() }
    }

    /// Consumes a line break (LF or CRLF) at the cursor; false when there is none.
    mutating func newline() throws(TOMLError) -> Bool {
        switch peek() {
        case 0x0A:
            advance()
        case 0x0D:
            guard peek(1) == 0x0A else { throw failure("a carriage return (CR) must be followed by a line feed") }
            advance(2)
        default:
            return false
        }
        line += 1
        lineStart = index
        return true
    }

    /// Skips a `#` comment up to (not including) the line break.
    mutating func skipComment() throws(TOMLError) {
        guard peek() == 0x23 else { return }
        advance()
        while let byte = peek(), byte != 0x0A, byte != 0x0D {
            if Self.isControl(byte) { throw failure("\(found()) is not allowed in a comment") }
            advance()
        }
    }

    /// Spaces, comments and line breaks: what may stand between the values of an array.
    mutating func skipBlank() throws(TOMLError) {
        while true {
            skipSpaces()
            try skipComment()
            if try !newline() { return }
        }
    }

    /// After a key/value or a header: spaces, a comment, then a line break or the end.
    mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        try skipComment()
        if peek() == nil { return }
        if try newline() { return }
        throw failure("expected the end of the line after \(what), found \(found())")
    }

    // MARK: The document

    mutating func document() throws(TOMLError) -> TOMLTable {
        try validateUTF8()
        if peek() == 0xEF && peek(1) == 0xBB && peek(2) == 0xBF {
            advance(3)  // a byte order mark, as Windows editors write
            lineStart = index
        }
        while true {
            skipSpaces()
            try skipComment()
            guard let byte = peek() else { break }
            if try newline() { continue }
            if byte == 0x5B {
                try header()
            } else {
                try keyValue(into: current)
                try endOfLine(after: "the value")
            }
        }
        return root.freeze()
    }

    /// Refuses text that is not UTF-8, at the first bad byte.
    func validateUTF8() throws(TOMLError) {
        var i = 0
        var lineAt = 1, startAt = 0
        let count = bytes.count
        func continuation(_ at: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            at < count && bytes[at] >= low && bytes[at] <= high
        }
        while i < count {
            let b = bytes[i]
            var length = 0
            if b < 0x80 {
                length = 1
                if b == 0x0A { lineAt += 1; startAt = i + 1 }
            } else if b >= 0xC2 && b <= 0xDF {
                length = continuation(i + 1) ? 2 : 0
            } else if b >= 0xE0 && b <= 0xEF {
                let low: UInt8 = b == 0xE0 ? 0xA0 : 0x80, high: UInt8 = b == 0xED ? 0x9F : 0xBF
                length = continuation(i + 1, low, high) && continuation(i + 2) ? 3 : 0
            } else if b >= 0xF0 && b <= 0xF4 {
                let low: UInt8 = b == 0xF0 ? 0x90 : 0x80, high: UInt8 = b == 0xF4 ? 0x8F : 0xBF
                length = continuation(i + 1, low, high) && continuation(i + 2) && continuation(i + 3) ? 4 : 0
            }
            if length == 0 {
                var column = 1
                for byte in bytes[startAt..<i] where byte & 0xC0 != 0x80 { column += 1 }
                throw TOMLError(
                    "the text is not UTF-8 (byte 0x\(Self.hex(UInt32(b), digits: 2)) at byte offset \(i)); save the "
                        + "file as UTF-8",
                                at: TOMLPosition(line: lineAt, column: column))
            }
            i += length
        }
    }

    // MARK: Keys

    /// A key, dotted or not: its parts with the place of each.
    mutating func key() throws(TOMLError) -> [(name: String, position: TOMLPosition)] {
        var parts: [(name: String, position: TOMLPosition)] = []
        while true {
            skipSpaces()
            let at = position()
            parts.append((try simpleKey(), at))
            if parts.count > limits.maxDepth {
                throw failure("a key of more than \(limits.maxDepth) dotted parts", at: at)
            }
            skipSpaces()
            guard peek() == 0x2E else { return parts }
            advance()
        }
    }

    private mutating func simpleKey() throws(TOMLError) -> String {
        switch peek() {
        case 0x22:
            if peek(1) == 0x22 && peek(2) == 0x22 { throw failure("a key cannot be a multi-line string") }
            return try basicString()
        case 0x27:
            if peek(1) == 0x27 && peek(2) == 0x27 { throw failure("a key cannot be a multi-line string") }
            return try literalString()
        case let byte? where Self.isBareKeyByte(byte):
            let start = index
            while let b = peek(), Self.isBareKeyByte(b) { advance() }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        default:
            throw failure("expected a key (letters, digits, '_' and '-', or a \"quoted\" name), found \(found())")
        }
    }

    static func path(_ parts: [(name: String, position: TOMLPosition)]) -> String {
        parts.map { TOMLTable.keyText($0.name) }.joined(separator: ".")
    }

    // MARK: Key/value pairs

    /// `key = value` into `table` (the current section, or an inline table being read).
    mutating func keyValue(into table: TableNode) throws(TOMLError) {
        let parts = try key()
        skipSpaces()
        guard peek() == 0x3D else {
            throw failure("expected '=' after the key '\(Self.path(parts))', found \(found())")
        }
        advance()
        skipSpaces()
        guard let last = parts.last else { throw failure("expected a key") }
        var target = table
        for (offset, part) in parts.dropLast().enumerated() {
            func shown() -> String { Self.path(Array(parts[0...offset])) }
            if let slot = target[part.name] {
                switch slot.item {
                case .table(let node) where node.origin == .dotted:
                    target = node
                case .table(let node):
                    throw failure(
                        "a dotted key cannot add to the table '\(shown())' defined on line \(node.position.line)",
                                  at: part.position)
                case .tables(let array):
                    throw failure(
                        "a dotted key cannot add to '\(shown())', an array of tables (line \(array.position.line))",
                                  at: part.position)
                case .value(let value):
                    throw failure(
                        "'\(shown())' is already a \(value.typeName) (line \(slot.keyPosition.line)); it cannot also "
                            + "be a table",
                                  at: part.position)
                }
            } else {
                let node = try child(of: target, origin: .dotted, at: part.position)
                target.add(part.name, .table(node), at: part.position)
                target = node
            }
        }
        if let slot = target[last.name] {
            throw failure("the key '\(Self.path(parts))' is already defined on line \(slot.keyPosition.line)",
                          at: last.position)
        }
        let value = try self.value(depth: target.depth + 1)
        target.add(last.name, .value(value), at: last.position)
    }

    /// A new table one level below `parent`, within the depth limit.
    func child(of parent: TableNode, origin: TableNode.Origin, at position: TOMLPosition) throws(TOMLError) -> TableNode
    {
        let depth = parent.depth + 1
        guard depth <= limits.maxDepth else {
            throw failure("tables nested more than \(limits.maxDepth) levels deep", at: position)
        }
        return TableNode(origin: origin, position: position, depth: depth)
    }

    // MARK: Headers

    /// `[a.b]` or `[[a.b]]`: the table that the following lines fill.
    mutating func header() throws(TOMLError) {
        let start = position()
        advance()
        let isArray = peek() == 0x5B
        if isArray { advance() }
        let parts = try key()
        skipSpaces()
        let shown = Self.path(parts)
        guard peek() == 0x5D, !isArray || peek(1) == 0x5D else {
            throw failure(
                "expected '\(isArray ? "]]" : "]")' to close the header [\(isArray ? "[" : "")\(shown), found "
                    + "\(found())"
            )
        }
        advance(isArray ? 2 : 1)
        try endOfLine(after: "the header")
        guard let last = parts.last else { throw failure("expected a key", at: start) }

        var table = root
        for (offset, part) in parts.dropLast().enumerated() {
            if let slot = table[part.name] {
                switch slot.item {
                case .table(let node):
                    table = node
                case .tables(let array):
                    guard let element = array.tables.last else {
                        throw failure("empty array of tables", at: part.position)
                    }
                    table = element
                case .value(let value):
                    let prefix = Self.path(Array(parts[0...offset]))
                    throw failure(
                        "'\(prefix)' is already a \(value.typeName) (line \(slot.keyPosition.line)), not a table",
                                  at: part.position)
                }
            } else {
                let node = try child(of: table, origin: .implicit, at: part.position)
                table.add(part.name, .table(node), at: part.position)
                table = node
            }
        }

        if isArray {
            let array: TableArrayNode
            if let slot = table[last.name] {
                guard case .tables(let existing) = slot.item else {
                    throw failure(
                        "[[\(shown)]] needs an array of tables, but '\(shown)' is already a \(Self.kind(slot.item)) "
                            + "(line \(slot.keyPosition.line))",
                                  at: start)
                }
                array = existing
            } else {
                array = TableArrayNode(position: start)
                table.add(last.name, .tables(array), at: last.position)
            }
            // An element of an array counts as a level, as an array value does.
            let depth = table.depth + 2
            guard depth <= limits.maxDepth else {
                throw failure("tables nested more than \(limits.maxDepth) levels deep", at: start)
            }
            let element = TableNode(origin: .header, position: start, depth: depth)
            array.tables.append(element)
            current = element
            return
        }

        if let slot = table[last.name] {
            switch slot.item {
            case .table(let node) where node.origin == .implicit:
                node.origin = .header
                node.position = start
                current = node
            case .table(let node) where node.origin == .dotted:
                throw failure(
                    "the table [\(shown)] was already made by dotted keys on line \(slot.keyPosition.line)", at: start)
            case .table(let node):
                throw failure("the table [\(shown)] is defined twice (first on line \(node.position.line))", at: start)
            case .tables(let array):
                throw failure(
                    "'\(shown)' is an array of tables (line \(array.position.line)); write [[\(shown)]] to add one",
                              at: start)
            case .value(let value):
                throw failure(
                    "'\(shown)' is already a \(value.typeName) (line \(slot.keyPosition.line)), not a table", at: start)
            }
        } else {
            let node = try child(of: table, origin: .header, at: start)
            table.add(last.name, .table(node), at: last.position)
            current = node
        }
    }

    static func kind(_ item: TableNode.Item) -> String {
        switch item {
        case .value(let value): value.typeName
        case .table: "table"
        case .tables: "array of tables"
        }
    }
}

/// Where columns were last counted to: line, byte offset and column there.
final class ColumnMark {
    var line = 0
    var index = 0
    var column = 1
}
