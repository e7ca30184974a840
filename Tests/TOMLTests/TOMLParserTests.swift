import Testing
import TOML

/// What a person writes in a manifest, parsed to the value and the place it was written.
@Suite(.tags(.unit)) struct TOMLParserTests {
    private func parse(_ text: String) throws -> TOMLTable { try TOMLTable(parsing: text) }

    /// The error `text` gives (the test fails when it parses).
    private func failure(_ text: String, limits: TOMLLimits = TOMLLimits()) -> TOMLError? {
        do {
            let table = try TOMLTable(parsing: text, limits: limits)
            Issue.record("parsed, expected an error: \(table)")
            return nil
        } catch {
            return error
        }
    }

    @Test func aManifestParsesWithKeysInOrderAndTheirLines() throws {
        let table = try parse("""
            # a routine
            title = "Juggling Act"   # shown on the LCD
            countdown = 5

            [[part]]
            title = "Opening"
            file = "song.wav"
            loop = { a = "0:20", b = "0:32" }
            moves = [
              { type = "Juggle", name = "5-ball cascade" },
              { type = "Dance", name = "Spin", at = "0:12.5" },   # cue
            ]

            [[part]]
            file = 'song.wav'
            from = 30.5
            """)
        #expect(table.keys == ["title", "countdown", "part"])
        #expect(table["title"]?.string == "Juggling Act")
        #expect(table.keyPosition("title") == TOMLPosition(line: 2, column: 1))
        #expect(table["countdown"]?.integer == 5)
        let parts = try #require(table["part"]?.array)
        #expect(parts.count == 2)
        #expect(parts.map(\.position.line) == [5, 14])
        let first = try #require(parts[0].table)
        #expect(first.keys == ["title", "file", "loop", "moves"])
        #expect(first["loop"]?.table?["b"]?.string == "0:32")
        #expect(first.keyPosition("loop")?.line == 8)
        let moves = try #require(first["moves"]?.array)
        #expect(moves.map { $0.table?["name"]?.string } == ["5-ball cascade", "Spin"])
        #expect(moves[1].table?.keyPosition("at") == TOMLPosition(line: 11, column: 36))
        #expect(parts[1].table?["file"]?.string == "song.wav")
        #expect(parts[1].table?["from"]?.float == 30.5)
    }

    @Test(arguments: [
        (#"a = "tab\there \"q\" back\\slash \u00E9 \U0001F483""#, "tab\there \"q\" back\\slash é 💃"),
        (#"a = 'C:\Music\no escapes'"#, #"C:\Music\no escapes"#),
        ("a = \"\"\"\nline one\nline two\"\"\"", "line one\nline two"),
        ("a = \"\"\"\r\nwindows\r\nlines\"\"\"", "windows\nlines"),
        ("a = \"\"\"joined \\\n    here\"\"\"", "joined here"),
        ("a = \"\"\"two quotes at the end\"\"\"\"\"", "two quotes at the end\"\""),
        ("a = '''\nraw \\n text'''", "raw \\n text"),
        ("a = \"\"", ""),
        ("\u{FEFF}a = \"after a byte order mark\"", "after a byte order mark"),
    ])
    func strings(text: String, expected: String) throws {
        #expect(try parse(text)["a"]?.string == expected)
    }

    @Test(arguments: [
        ("a = 42", Int64(42)), ("a = +17", 17), ("a = -0", 0), ("a = 1_000_000", 1_000_000),
        ("a = 0xDEAD_beef", 0xDEAD_BEEF), ("a = 0o755", 0o755), ("a = 0b1101", 13),
        ("a = 9223372036854775807", Int64.max), ("a = -9223372036854775808", Int64.min),
        ("a = 0x7FFFFFFFFFFFFFFF", Int64.max),
    ])
    func integers(text: String, expected: Int64) throws {
        #expect(try parse(text)["a"]?.integer == expected)
    }

    @Test(arguments: [
        ("a = 1.5", 1.5), ("a = -0.25", -0.25), ("a = 5e+2", 500), ("a = 1E-2", 0.01),
        ("a = 6.626e-34", 6.626e-34), ("a = 9_224.5_5", 9224.55), ("a = inf", Double.infinity),
        ("a = -inf", -Double.infinity), ("a = 0.0", 0),
    ])
    func floats(text: String, expected: Double) throws {
        #expect(try parse(text)["a"]?.float == expected)
    }

    @Test func nanBooleansAndTimes() throws {
        let table = try parse("a = nan\nb = true\nc = false\nd = 00:01:05.5\n")
        #expect(table["a"]?.float?.isNaN == true)
        #expect(table["b"]?.bool == true)
        #expect(table["c"]?.bool == false)
        #expect(table["d"]?.time == TOMLTime(hour: 0, minute: 1, second: 5, nanosecond: 500_000_000))
    }

    @Test func arraysOverLinesWithCommentsAndATrailingComma() throws {
        let table = try parse("""
            a = [
              1,   # one
              "two",
              [3, [4]],
            ]
            b = []
            """)
        let a = try #require(table["a"]?.array)
        #expect(a.count == 3)
        #expect(a[0].integer == 1 && a[1].string == "two")
        #expect(a[2].array?[1].array?[0].integer == 4)
        #expect(table["b"]?.array?.isEmpty == true)
    }

    @Test func keysBareQuotedAndDotted() throws {
        let table = try parse("""
            bare-key_1 = 1
            "quoted key" = 2
            'literal.key' = 3
            site."google.com".visits = 4
            x . y = 5
            [fruit.apple]
            color = "red"
            [fruit.apple.texture]
            smooth = true
            [fruit]
            name = "fruits"
            """)
        #expect(table["bare-key_1"]?.integer == 1)
        #expect(table["quoted key"]?.integer == 2)
        #expect(table["literal.key"]?.integer == 3)
        #expect(table["site"]?.table?["google.com"]?.table?["visits"]?.integer == 4)
        #expect(table["x"]?.table?["y"]?.integer == 5)
        let fruit = try #require(table["fruit"]?.table)
        #expect(fruit["name"]?.string == "fruits")
        #expect(fruit["apple"]?.table?["texture"]?.table?["smooth"]?.bool == true)
        // [fruit] came after [fruit.apple]: the table is where it was defined.
        #expect(table["fruit"]?.position.line == 10)
    }

    @Test func arraysOfTablesWithSubtables() throws {
        let table = try parse("""
            [[fruits]]
            name = "apple"
            [fruits.physical]
            color = "red"
            [[fruits.varieties]]
            name = "red delicious"
            [[fruits]]
            name = "banana"
            """)
        let fruits = try #require(table["fruits"]?.array)
        #expect(fruits.map { $0.table?["name"]?.string } == ["apple", "banana"])
        #expect(fruits[0].table?["physical"]?.table?["color"]?.string == "red")
        #expect(fruits[0].table?["varieties"]?.array?.first?.table?["name"]?.string == "red delicious")
        #expect(fruits[1].table?["physical"] == nil)
    }

    @Test func inlineTablesMaySpanLinesWithATrailingComma() throws {
        let table = try parse("m = { type = \"Dance\",\n  name = \"Spin\", point.x = 1,\n}\n")
        let m = try #require(table["m"]?.table)
        #expect(m.keys == ["type", "name", "point"])
        #expect(m["point"]?.table?["x"]?.integer == 1)
        #expect(table["e"] == nil)
        #expect(try parse("e = {}")["e"]?.table?.isEmpty == true)
    }

    /// (text, line, column, start of the reason)
    @Test(arguments: [
        ("[\\", 1, 2, "expected a key"),
        ("[", 1, 2, "expected a key"),
        ("[[", 1, 3, "expected a key"),
        ("[a", 1, 3, "expected ']' to close the header [a"),
        ("[[a]", 1, 4, "expected ']]' to close the header [[a, found ']'"),
        ("a", 1, 2, "expected '=' after the key 'a'"),
        ("a =", 1, 4, "expected a value, found the end of the text"),
        ("a = # nothing", 1, 5, "expected a value, found a comment"),
        ("title = Hello", 1, 9, "expected a value"),
        ("a = 1 2", 1, 7, "expected the end of the line after the value"),
        ("a = \"open", 1, 10, "the string opened on line 1, column 5 is not closed"),
        ("a = \"line\nb = 1", 1, 10, "the string opened at column 5 is not closed before the end of the line"),
        ("a = \"\\q\"", 1, 6, "unknown escape \\q"),
        ("a = \"C:\\Music\"", 1, 8, "unknown escape \\M"),
        ("a = \"\\u12\"", 1, 10, "\\u needs 4 hexadecimal digits"),
        ("a = \"\\uD800\"", 1, 6, "\\uD800 is not a Unicode character"),
        ("a = \"\\U00110000\"", 1, 6, "\\U00110000 is not a Unicode character"),
        ("a = '''open", 1, 12, "the string opened on line 1, column 5 is not closed with '''"),
        ("a = \"\"\"x\"\"\"\"\"\"", 1, 9, "too many quotes"),
        ("a = 1\na = 2", 2, 1, "the key 'a' is already defined on line 1"),
        ("[t]\n[t]", 2, 1, "the table [t] is defined twice"),
        ("a.b = 1\n[a]", 2, 1, "the table [a] was already made by dotted keys"),
        ("[a.b]\n[a]\nb.c = 1", 3, 1, "a dotted key cannot add to the table 'b'"),
        ("a = { b = 1 }\na.c = 2", 2, 1, "'a' is already a table"),
        ("a = { b = 1 }\n[a]", 2, 1, "'a' is already a table"),
        ("a = []\n[[a]]", 2, 1, "[[a]] needs an array of tables, but 'a' is already a array"),
        ("[[a]]\n[a]", 2, 1, "'a' is an array of tables"),
        ("a = { b = 1, b = 2 }", 1, 14, "the key 'b' is already defined"),
        ("a = [1 2]", 1, 8, "expected ',' or ']'"),
        ("a = [1,", 1, 8, "expected a value, found the end of the text"),
        ("a = [", 1, 6, "expected a value, found the end of the text"),
        ("a = { b = 1 c = 2 }", 1, 13, "expected ',' or '}'"),
        ("a = {", 1, 6, "the table opened on line 1, column 5 is not closed"),
        ("a = 01", 1, 5, "01: leading zeros"),
        ("a = 1__0", 1, 5, "1__0 is not a number"),
        ("a = _1", 1, 5, "expected a value"),
        ("a = 1_", 1, 5, "1_ is not a number"),
        ("a = 9223372036854775808", 1, 5, "9223372036854775808 does not fit in a 64-bit integer"),
        ("a = -9223372036854775809", 1, 5, "-9223372036854775809 does not fit in a 64-bit integer"),
        ("a = 0x8000000000000000", 1, 5, "0x8000000000000000 does not fit in a 64-bit integer"),
        ("a = 0xFFFFFFFFFFFFFFFFFFFF", 1, 5, "0xFFFFFFFFFFFFFFFFFFFF does not fit in a 64-bit integer"),
        ("a = -0x1", 1, 5, "-0x1: a hexadecimal, octal or binary number has no sign"),
        ("a = 0b102", 1, 5, "0b102 is not a number"),
        ("a = 1.", 1, 5, "1. is not a number"),
        ("a = .5", 1, 5, "expected a value"),
        ("a = 1e", 1, 5, "1e is not a number"),
        ("a = 1e999", 1, 5, "1e999 is out of the range of a float"),
        ("a = 1e99999999999999999999", 1, 5, "1e99999999999999999999 is out of the range of a float"),
        ("a = truely", 1, 5, "expected a value"),
        ("a = nope", 1, 5, "nope is not a number; text must be in quotes"),
        ("a = 1979-05-27", 1, 5, "dates are not supported here"),
        ("a = 1979-05-27T07:32:00Z", 1, 5, "dates are not supported here"),
        ("to = 1:05", 1, 6, "1:05 is not a value: write times in quotes"),
        ("a = 25:00:00", 1, 5, "25:00:00 is not a value"),
        ("a = \"x\"\r", 1, 8, "a carriage return (CR) must be followed by a line feed"),
        ("# bell \u{07}", 1, 8, "a control character (U+0007) is not allowed in a comment"),
        ("a = \"nul \u{0}\"", 1, 10, "a control character (U+0000) is not allowed in a string"),
        ("\"\"\"k\"\"\" = 1", 1, 1, "a key cannot be a multi-line string"),
        ("a = \"x\\\nb\"", 1, 7, "a backslash at the end of the line"),
        ("é = 1", 1, 1, "expected a key (letters, digits, '_' and '-', or a \"quoted\" name), found 'é'"),
        ("a = 1\n  b = é", 2, 7, "expected a value"),
    ])
    func everyMistakeIsAnErrorWithItsPlace(text: String, line: Int, column: Int, reason: String) {
        guard let error = failure(text) else { return }
        #expect(error.reason.hasPrefix(reason), "\(error)")
        #expect(error.position == TOMLPosition(line: line, column: column), "\(error)")
    }

    @Test func bytesThatAreNotUTF8AreRefusedWhereTheyAre() {
        let bytes: [UInt8] = Array("a = 1\nb = \"".utf8) + [0xC3, 0x28] + Array("\"".utf8)
        #expect(throws: TOMLError("the text is not UTF-8 (byte 0xC3 at byte offset 11); save the file as UTF-8",
                                  at: TOMLPosition(line: 2, column: 6))) {
            try TOMLTable(parsing: bytes)
        }
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            #expect(throws: TOMLError.self) { try TOMLTable(parsing: Array("a = \"".utf8) + bad + Array("\"".utf8)) }
        }
    }

    @Test func nestingIsBounded() {
        let limits = TOMLLimits(maxDepth: 8)
        #expect(failure("a = " + String(repeating: "[", count: 9) + String(repeating: "]", count: 9), limits: limits)?
            .reason == "values nested more than 8 levels deep")
        #expect(failure("a = " + String(repeating: "{ b = ", count: 9) + "1" + String(repeating: " }", count: 9),
                        limits: limits)?.reason == "values nested more than 8 levels deep")
        #expect(failure(Array(repeating: "k", count: 9).joined(separator: ".") + " = 1", limits: limits)?
            .reason == "a key of more than 8 dotted parts")
        #expect(failure("[" + Array(repeating: "k", count: 9).joined(separator: ".") + "]", limits: limits)?
            .reason == "a key of more than 8 dotted parts")
        // Fine within the bound.
        #expect((try? TOMLTable(parsing: "a = " + String(repeating: "[", count: 7) + String(repeating: "]", count: 7),
                                limits: limits)) != nil)
        // A hundred thousand brackets: an error, not a stack overflow.
        #expect(failure("a = " + String(repeating: "[", count: 100_000))?.reason == "values nested more than 32 levels deep")
    }

    @Test func sizeIsBounded() {
        let limits = TOMLLimits(maxBytes: 16)
        #expect(failure("title = \"seventeen\"", limits: limits)?.reason == "the text is 19 bytes; at most 16 are accepted")
        #expect((try? TOMLTable(parsing: "a = \"0123456789\"", limits: limits)) != nil)
    }

    /// Half a million values on one line: the place of each is counted on from the last,
    /// not from the start of the line (that made it quadratic: hours, not milliseconds).
    @Test func aLongLineOfValuesParsesInOnePass() throws {
        let text = "a = [" + String(repeating: "1,", count: 500_000) + "]"
        let table = try TOMLTable(parsing: text)
        #expect(table["a"]?.array?.count == 500_000)
        #expect(table["a"]?.array?.last?.position == TOMLPosition(line: 1, column: 6 + 2 * 499_999))
        let keys = "t = { " + (0..<50_000).map { "k\($0) = \"é\"" }.joined(separator: ", ") + " }"
        let inline = try #require(try TOMLTable(parsing: keys)["t"]?.table)
        #expect(inline.count == 50_000)
        #expect(inline.keyPosition("k1") == TOMLPosition(line: 1, column: 17))  // é is one column, two bytes
    }

    @Test func valuesDescribeThemselvesAsTOML() throws {
        let table = try parse(#"a = [1, 2.5, "x\"y", true, { b = 'c' }, 07:30:00]"#)
        #expect(table["a"]?.description == #"[1, 2.5, "x\"y", true, { b = "c" }, 07:30:00]"#)
        #expect(table["a"]?.array?.map(\.typeName) == ["integer", "float", "string", "boolean", "table", "time"])
    }
}
