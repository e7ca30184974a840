extension TOMLParser {
    /// `"…"` with escapes, on one line.
    mutating func basicString() throws(TOMLError) -> String {
        let start = position()
        advance()
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw failure("the string opened on line \(start.line), column \(start.column) is not closed with '\"'")
            }
            switch byte {
            case 0x22:
                advance()
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                try escape(into: &out)
            case 0x0A, 0x0D:
                throw failure("the string opened at column \(start.column) is not closed before the end of the line"
                              + " (a string over several lines is written \"\"\"…\"\"\")")
            case let b where Self.isControl(b):
                throw failure("\(found()) is not allowed in a string; write it as an escape")
            default:
                out.append(byte)
                advance()
            }
        }
    }

    /// `'…'`: taken as written, no escapes, on one line.
    mutating func literalString() throws(TOMLError) -> String {
        let start = position()
        advance()
        let from = index
        while true {
            guard let byte = peek() else {
                throw failure(
                    "the string opened on line \(start.line), column \(start.column) is not closed with \"'\"")
            }
            switch byte {
            case 0x27:
                let text = String(decoding: bytes[from..<index], as: UTF8.self)
                advance()
                return text
            case 0x0A, 0x0D:
                throw failure("the string opened at column \(start.column) is not closed before the end of the line"
                              + " (a string over several lines is written '''…''')")
            case let b where Self.isControl(b):
                throw failure("\(found()) is not allowed in a string")
            default:
                advance()
            }
        }
    }

    /// `"""…"""`: escapes, line breaks kept (a break right after the opening quotes is
    /// dropped), a backslash at the end of a line joins it to the next.
    mutating func multilineBasicString() throws(TOMLError) -> String {
        try multiline(quote: 0x22, escapes: true)
    }

    /// `'''…'''`: taken as written, line breaks kept.
    mutating func multilineLiteralString() throws(TOMLError) -> String {
        try multiline(quote: 0x27, escapes: false)
    }

    private mutating func multiline(quote: UInt8, escapes: Bool) throws(TOMLError) -> String {
        let start = position()
        advance(3)
        _ = try newline()
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else {
                let q = quote == 0x22 ? "\"\"\"" : "'''"
                throw failure("the string opened on line \(start.line), column \(start.column) is not closed with \(q)")
            }
            if byte == quote && peek(1) == quote && peek(2) == quote {
                // Up to two quotes just before the closing three belong to the string.
                var run = 3
                while peek(run) == quote { run += 1 }
                guard run <= 5 else { throw failure("too many quotes at the end of a string") }
                for _ in 0..<(run - 3) { out.append(quote) }
                advance(run)
                return String(decoding: out, as: UTF8.self)
            }
            switch byte {
            case 0x0A, 0x0D:
                _ = try newline()
                out.append(0x0A)
            case 0x5C where escapes:
                if try lineEndingBackslash() { continue }
                try escape(into: &out)
            case let b where Self.isControl(b):
                throw failure("\(found()) is not allowed in a string\(escapes ? "; write it as an escape" : "")")
            default:
                out.append(byte)
                advance()
            }
        }
    }

    /// A backslash followed by spaces and a line break: skips it and all blank space after.
    private mutating func lineEndingBackslash() throws(TOMLError) -> Bool {
        var offset = 1
        while let b = peek(offset), b == 0x20 || b == 0x09 { offset += 1 }
        guard peek(offset) == 0x0A || (peek(offset) == 0x0D && peek(offset + 1) == 0x0A) else { return false }
        advance(offset)
        while true {
            skipSpaces()
            if try !newline() { return true }
        }
    }

    /// The escape at the cursor (a backslash and what follows), as UTF-8.
    mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let start = position()
        advance()
        guard let letter = peek() else { throw failure("the text ends inside an escape", at: start) }
        let simple: UInt8?
        switch letter {
        case 0x62: simple = 0x08  // \b
        case 0x74: simple = 0x09  // \t
        case 0x6E: simple = 0x0A  // \n
        case 0x66: simple = 0x0C  // \f
        case 0x72: simple = 0x0D  // \r
        case 0x65: simple = 0x1B  // \e (TOML 1.1)
        case 0x22: simple = 0x22
        case 0x5C: simple = 0x5C
        case 0x75, 0x55: simple = nil
        case 0x0A, 0x0D:
            throw failure(
                "a backslash at the end of the line (only a \"\"\"multi-line\"\"\" string continues on the next line)",
                          at: start)
        default:
            throw failure(
                "unknown escape \\\(found().trimmingQuotes) (known: \\b \\t \\n \\f \\r \\e \\\" \\\\ \\uXXXX "
                    + "\\UXXXXXXXX;"
                          + " for a path write / or use a 'single-quoted' string)", at: start)
        }
        advance()
        if let simple {
            out.append(simple)
            return
        }
        let digits = letter == 0x75 ? 4 : 8
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let byte = peek(), let digit = Self.hexDigit(byte) else {
                throw failure("\\\(letter == 0x75 ? "u" : "U") needs \(digits) hexadecimal digits, found \(found())")
            }
            value = value &<< 4 | UInt32(digit)
            advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw failure(
                "\\\(letter == 0x75 ? "u" : "U")\(Self.hex(value, digits: digits)) is not a Unicode character",
                at: start)
        }
        out.append(contentsOf: String(Character(scalar)).utf8)
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

fileprivate extension String {
    /// `'x'` → `x`, for quoting a found character after a backslash.
    var trimmingQuotes: String {
        hasPrefix("'") && hasSuffix("'") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
