/// A Rubber Band call failed: which function and why (the library has no error codes of
/// its own; it answers a bad call with a null handle or a count that is not what was asked).
public struct RubberBandError: Error, Equatable, Sendable, CustomStringConvertible {
    public var function: String
    public var message: String
    public init(function: String, message: String) {
        self.function = function
        self.message = message
    }
    public var description: String { "\(function): \(message)" }
}
