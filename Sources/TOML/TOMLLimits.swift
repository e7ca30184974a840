/// Bounds on what a parse may take, for text that comes from an untrusted source: the
/// parse time and memory are proportional to the text, and its recursion to the depth.
public struct TOMLLimits: Sendable, Equatable {
    /// The longest text accepted, in bytes.
    public var maxBytes: Int
    /// How deeply tables and arrays may nest (a key's dotted parts count as levels).
    public var maxDepth: Int

    public init(maxBytes: Int = 1 << 20, maxDepth: Int = 32) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }
}
