/// A TOML local time (`07:32:00.5`), the only one of TOML's date and time values kept:
/// a time of day without a date or an offset.
public struct TOMLTime: Hashable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var nanosecond: Int

    public init(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = "\(two(hour)):\(two(minute)):\(two(second))"
        if nanosecond > 0 {
            var digits = String(nanosecond)
            digits = String(repeating: "0", count: max(0, 9 - digits.count)) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }
}
