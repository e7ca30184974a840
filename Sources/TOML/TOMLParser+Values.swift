extension TOMLParser {
    /// A value at `depth` levels below the root (arrays and inline tables add one).
    mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        let start = position()
        guard depth <= limits.maxDepth else {
            throw failure("values nested more than \(limits.maxDepth) levels deep")
        }
        switch peek() {
        case 0x22:
            let text = peek(1) == 0x22 && peek(2) == 0x22 ? try multilineBasicString() : try basicString()
            return TOMLValue(.string(text), at: start)
        case 0x27:
            let text = peek(1) == 0x27 && peek(2) == 0x27 ? try multilineLiteralString() : try literalString()
            return TOMLValue(.string(text), at: start)
        case 0x5B:
            return try array(depth: depth, start: start)
        case 0x7B:
            return try inlineTable(depth: depth, start: start)
        case 0x74 where word("true"):
            advance(4)
            return TOMLValue(.boolean(true), at: start)
        case 0x66 where word("false"):
            advance(5)
            return TOMLValue(.boolean(false), at: start)
        case let byte? where (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D
                || byte == 0x69 || byte == 0x6E:
            return try number(start: start)
        case nil, 0x0A, 0x0D, 0x23:
            throw failure("expected a value, found \(peek() == 0x23 ? "a comment" : found())")
        case let byte?:
            let letter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte >= 0x80
            throw failure(
                "expected a value (a \"string\", a number, true or false, an [array] or a { table }), found \(found())"
                          + (letter ? "; text must be in quotes" : ""))
        }
    }

    /// True when `text` is at the cursor as a whole word (`true`, not `trueish`).
    func word(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            if peek(count) != byte { return false }
            count += 1
        }
        guard let next = peek(count) else { return true }
        return !Self.isBareKeyByte(next)
    }

    /// `[ v, v, … ]` over any number of lines, with comments and a trailing comma.
    mutating func array(depth: Int, start: TOMLPosition) throws(TOMLError) -> TOMLValue {
        advance()
        var elements: [TOMLValue] = []
        while true {
            try skipBlank()
            if peek() == 0x5D { advance(); break }
            elements.append(try value(depth: depth + 1))
            try skipBlank()
            switch peek() {
            case 0x2C: advance()
            case 0x5D: advance(); return TOMLValue(.array(elements), at: start)
            case nil:
                throw failure("the array opened on line \(start.line), column \(start.column) is not closed with ']'")
            default: throw failure("expected ',' or ']' after a value of the array, found \(found())")
            }
        }
        return TOMLValue(.array(elements), at: start)
    }

    /// `{ k = v, … }`: once closed, nothing can add to it.
    mutating func inlineTable(depth: Int, start: TOMLPosition) throws(TOMLError) -> TOMLValue {
        advance()
        let node = TableNode(origin: .inline, position: start, depth: depth)
        while true {
            try skipBlank()
            if peek() == 0x7D { advance(); break }
            if peek() == nil {
                throw failure("the table opened on line \(start.line), column \(start.column) is not closed with '}'")
            }
            try keyValue(into: node)
            try skipBlank()
            switch peek() {
            case 0x2C: advance()
            case 0x7D: advance(); return TOMLValue(.table(node.freeze()), at: start)
            case nil:
                throw failure("the table opened on line \(start.line), column \(start.column) is not closed with '}'")
            default: throw failure("expected ',' or '}' after a value of the inline table, found \(found())")
            }
        }
        return TOMLValue(.table(node.freeze()), at: start)
    }
}
