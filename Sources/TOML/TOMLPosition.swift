/// A place in TOML text: 1-based line and column. Columns count Unicode scalars, so a
/// column is where a person's editor puts the cursor.
public struct TOMLPosition: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}
