extension TOMLParser {
    /// An integer, a float, `inf`/`nan`, or a local time: the run of characters a number
    /// can hold, then checked against TOML's grammar. Dates are refused by name.
    mutating func number(start: TOMLPosition) throws(TOMLError) -> TOMLValue {
        let from = index
        while let b = peek(), Self.isNumberByte(b) { advance() }
        let token = bytes[from..<index]
        var shown = String(decoding: token.prefix(40), as: UTF8.self)
        if token.count > 40 { shown += "…" }

        if Self.looksLikeDate(token) {
            throw failure(
                "dates are not supported here (\(shown)); times are written in quotes, like \"1:05\"", at: start)
        }
        if token.contains(0x3A) {
            guard let time = Self.localTime(token) else {
                throw failure("\(shown) is not a value: write times in quotes, like \"1:05\"", at: start)
            }
            return TOMLValue(.time(time), at: start)
        }

        var body = token
        var negative = false, signed = false
        if let first = body.first, first == 0x2B || first == 0x2D {
            signed = true
            negative = first == 0x2D
            body = body.dropFirst()
        }
        if body.elementsEqual("inf".utf8) {
            return TOMLValue(.float(negative ? -.infinity : .infinity), at: start)
        }
        if body.elementsEqual("nan".utf8) {
            return TOMLValue(.float(.nan), at: start)
        }
        func notANumber() -> TOMLError {
            let letter = token.first.map { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A } ?? false
            return failure("\(shown) is not a number\(letter ? "; text must be in quotes" : "")", at: start)
        }

        if body.count >= 2, body.first == 0x30, let marker = body.dropFirst().first,
           let radix: UInt64 = marker == 0x78 ? 16 : marker == 0x6F ? 8 : marker == 0x62 ? 2 : nil {
            guard !signed else {
                throw failure("\(shown): a hexadecimal, octal or binary number has no sign", at: start)
            }
            guard let digits = Self.digits(body.dropFirst(2), radix: radix) else { throw notANumber() }
            var value: UInt64 = 0
            for digit in digits {
                let (shifted, o1) = value.multipliedReportingOverflow(by: radix)
                let (sum, o2) = shifted.addingReportingOverflow(UInt64(digit))
                guard !o1, !o2, sum <= UInt64(Int64.max) else {
                    throw failure("\(shown) does not fit in a 64-bit integer", at: start)
                }
                value = sum
            }
            return TOMLValue(.integer(Int64(value)), at: start)
        }

        if body.contains(where: { $0 == 0x2E || $0 == 0x65 || $0 == 0x45 }) {
            return TOMLValue(
                .float(try float(body, negative: negative, shown: shown, start: start, notANumber)), at: start)
        }

        guard let digits = Self.digits(body, radix: 10) else { throw notANumber() }
        if digits.count > 1 && digits.first == 0 {
            throw failure("\(shown): leading zeros are not allowed in a number", at: start)
        }
        var value: Int64 = 0
        for digit in digits {
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? shifted.subtractingReportingOverflow(Int64(digit))
                : shifted.addingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { throw failure("\(shown) does not fit in a 64-bit integer", at: start) }
            value = sum
        }
        return TOMLValue(.integer(value), at: start)
    }

    private func float(_ body: ArraySlice<UInt8>, negative: Bool, shown: String, start: TOMLPosition,
                       _ notANumber: () -> TOMLError) throws(TOMLError) -> Double {
        var mantissa = body
        var exponent: ArraySlice<UInt8>?
        if let e = body.firstIndex(where: { $0 == 0x65 || $0 == 0x45 }) {
            mantissa = body[body.startIndex..<e]
            exponent = body[(e + 1)...]
        }
        var whole = mantissa
        var fraction: ArraySlice<UInt8>?
        if let dot = mantissa.firstIndex(of: 0x2E) {
            whole = mantissa[mantissa.startIndex..<dot]
            fraction = mantissa[(dot + 1)...]
        }
        guard let wholeDigits = Self.digits(whole, radix: 10) else { throw notANumber() }
        if wholeDigits.count > 1 && wholeDigits.first == 0 {
            throw failure("\(shown): leading zeros are not allowed in a number", at: start)
        }
        var text = negative ? "-" : ""
        text += String(decoding: wholeDigits.map { $0 + 0x30 }, as: UTF8.self)
        if let fraction {
            guard let digits = Self.digits(fraction, radix: 10) else { throw notANumber() }
            text += "." + String(decoding: digits.map { $0 + 0x30 }, as: UTF8.self)
        }
        if var exponent {
            text += "e"
            if let sign = exponent.first, sign == 0x2B || sign == 0x2D {
                if sign == 0x2D { text += "-" }
                exponent = exponent.dropFirst()
            }
            guard let digits = Self.digits(exponent, radix: 10) else { throw notANumber() }
            // Beyond a few hundred the value is 0 or out of range anyway; keep the text short.
            let significant = digits.drop { $0 == 0 }
            text += significant.count > 6 ? "999999" : String(decoding: significant.map { $0 + 0x30 }, as: UTF8.self)
            if significant.isEmpty { text += "0" }
        }
        guard let value = Double(text), value.isFinite else {
            throw failure("\(shown) is out of the range of a float", at: start)
        }
        return value
    }

    /// The digit values of `run` in `radix`, with `_` allowed only between two digits.
    static func digits(_ run: ArraySlice<UInt8>, radix: UInt64) -> [UInt8]? {
        guard let first = run.first, let last = run.last, first != 0x5F, last != 0x5F else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(run.count)
        var afterUnderscore = false
        for byte in run {
            if byte == 0x5F {
                if afterUnderscore { return nil }
                afterUnderscore = true
                continue
            }
            guard let digit = hexDigit(byte), UInt64(digit) < radix else { return nil }
            out.append(digit)
            afterUnderscore = false
        }
        return out
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == 0x2B || byte == 0x2E || byte == 0x3A
    }

    /// `1979-05-27…`: four digits and a dash.
    static func looksLikeDate(_ token: ArraySlice<UInt8>) -> Bool {
        let head = Array(token.prefix(5))
        return head.count == 5 && head[0..<4].allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && head[4] == 0x2D
    }

    /// `HH:MM:SS` with an optional fraction of a second.
    static func localTime(_ token: ArraySlice<UInt8>) -> TOMLTime? {
        let t = Array(token)
        guard t.count >= 8, t[2] == 0x3A, t[5] == 0x3A else { return nil }
        func two(_ at: Int) -> Int? {
            guard t[at] >= 0x30 && t[at] <= 0x39 && t[at + 1] >= 0x30 && t[at + 1] <= 0x39 else { return nil }
            return Int(t[at] - 0x30) * 10 + Int(t[at + 1] - 0x30)
        }
        guard let hour = two(0), let minute = two(3), let second = two(6),
              hour < 24, minute < 60, second < 60 else { return nil }
        var nanosecond = 0
        if t.count > 8 {
            let fraction = t[9...]
            guard t[8] == 0x2E, !fraction.isEmpty, fraction.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            var scale = 100_000_000
            for digit in fraction.prefix(9) {
                nanosecond += Int(digit - 0x30) * scale
                scale /= 10
            }
        }
        return TOMLTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
    }
}
