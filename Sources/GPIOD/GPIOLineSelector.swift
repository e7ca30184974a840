/// Which line of a chip: by its offset, or by the name the device tree or gpio-sim gave it.
public enum GPIOLineSelector: Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral
{
    case offset(UInt32)
    case name(String)

    /// Reads a configuration value: a plain decimal number is an offset, anything else a name.
    public init(parsing text: String) {
        if let number = UInt32(text) {
            self = .offset(number)
        } else {
            self = .name(text)
        }
    }

    public init(stringLiteral value: String) { self = .name(value) }
    public init(integerLiteral value: UInt32) { self = .offset(value) }

    public var description: String {
        switch self {
        case .offset(let offset): "offset \(offset)"
        case .name(let name): "\"\(name)\""
        }
    }
}

/// A snapshot of one line's state, as `gpioinfo` shows it.
public struct GPIOLineInfo: Equatable, Sendable {
    public var offset: UInt32
    /// The line's name, when the chip names its lines.
    public var name: String?
    /// Who holds the line (e.g. "segmance"), when it is requested.
    public var consumer: String?
    /// Whether the line is in use, by a process or by the kernel.
    public var used: Bool

    public init(offset: UInt32, name: String?, consumer: String?, used: Bool) {
        self.offset = offset
        self.name = name
        self.consumer = consumer
        self.used = used
    }
}
