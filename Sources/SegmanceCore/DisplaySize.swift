/// The size of the character display, for rules that page text over it.
public struct DisplaySize: Equatable, Sendable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int = 16, rows: Int = 2) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
    }
}
