/// A TOML value with the place it was written.
public struct TOMLValue: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case time(TOMLTime)
        case array([TOMLValue])
        case table(TOMLTable)
    }

    public var kind: Kind
    /// Where the value begins; for a table, its `[header]` (or its `{`).
    public var position: TOMLPosition

    public init(_ kind: Kind, at position: TOMLPosition) {
        self.kind = kind
        self.position = position
    }

    public var string: String? { if case .string(let v) = kind { v } else { nil } }
    public var integer: Int64? { if case .integer(let v) = kind { v } else { nil } }
    /// The integer as an `Int` (always fits on a 64-bit machine; nil elsewhere when it does not).
    public var int: Int? { integer.flatMap { Int(exactly: $0) } }
    public var float: Double? { if case .float(let v) = kind { v } else { nil } }
    public var bool: Bool? { if case .boolean(let v) = kind { v } else { nil } }
    public var time: TOMLTime? { if case .time(let v) = kind { v } else { nil } }
    public var array: [TOMLValue]? { if case .array(let v) = kind { v } else { nil } }
    public var table: TOMLTable? { if case .table(let v) = kind { v } else { nil } }

    /// The kind's name for messages: "string", "integer", "float", "boolean", "time",
    /// "array", "table".
    public var typeName: String {
        switch kind {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .time: "time"
        case .array: "array"
        case .table: "table"
        }
    }
}

extension TOMLValue: CustomStringConvertible {
    /// The value as TOML would write it: `"text"`, `12`, `1.5`, `true`, `[1, 2]`, `{ a = 1 }`.
    public var description: String {
        switch kind {
        case .string(let text): return TOMLValue.quoted(text)
        case .integer(let n): return String(n)
        case .float(let x):
            if x.isNaN { return "nan" }
            if x.isInfinite { return x < 0 ? "-inf" : "inf" }
            return String(x)
        case .boolean(let b): return b ? "true" : "false"
        case .time(let t): return t.description
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .table(let table): return table.description
        }
    }

    /// `text` as a TOML basic string, with escapes where needed.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
