/// Why a TOML text was refused, and where: every input either parses or gives one of these.
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public var position: TOMLPosition
    /// What is wrong, for a person ("expected '=' after the key 'title', found ':'").
    public var reason: String

    public init(_ reason: String, at position: TOMLPosition) {
        self.reason = reason
        self.position = position
    }

    public var line: Int { position.line }
    public var column: Int { position.column }

    public var description: String { "\(position): \(reason)" }
}
