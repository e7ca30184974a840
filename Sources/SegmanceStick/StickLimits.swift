/// Bounds on what a scan of a stick looks at. A stick is untrusted: whatever it holds,
/// the scan reads a bounded number of names and keeps a bounded number of routines, and
/// each bound that is hit is reported with the folder and the bound (the rest still
/// imports). The defaults are far beyond what a dancer's stick holds (300 routines and
/// 3,000 files scan in well under the bounds).
public struct StickLimits: Sendable, Equatable {
    /// How many folder levels below the root are searched for routines.
    public var maxDepth: Int
    /// Names read from one folder; the rest of a larger folder is not looked at.
    public var maxEntriesPerFolder: Int
    /// Names read from the whole stick; the scan stops there.
    public var maxEntries: Int
    /// Routine folders found on one stick; the scan stops there.
    public var maxRoutines: Int
    /// Audio files that become parts of one routine (the first, in name order).
    public var maxAudioFiles: Int
    /// The longest file or folder name taken, in characters (Unicode scalars).
    public var maxNameLength: Int

    public init(maxDepth: Int = 4, maxEntriesPerFolder: Int = 5_000, maxEntries: Int = 50_000,
                maxRoutines: Int = 1_000, maxAudioFiles: Int = 250, maxNameLength: Int = 255) {
        self.maxDepth = maxDepth
        self.maxEntriesPerFolder = maxEntriesPerFolder
        self.maxEntries = maxEntries
        self.maxRoutines = maxRoutines
        self.maxAudioFiles = maxAudioFiles
        self.maxNameLength = maxNameLength
    }
}
