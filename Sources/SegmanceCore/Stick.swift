/// A stick that appeared, as a quick scan saw it (nothing decoded yet).
public struct StickOffer: Equatable, Sendable {
    /// Where it is mounted (or the folder the twin was given).
    public var path: String
    /// The routines its import will bring in: folders with music found on it (none: the
    /// performer is told there is no music, and nothing is offered).
    public var routines: Int
    /// Folders with music whose routine the import will refuse (a `routine.toml` with
    /// problems): said with the offer, never counted in it.
    public var refused: Int
    /// The performer said not now (long push); the offer stays hidden until the next stick.
    public var dismissed: Bool

    public init(path: String, routines: Int, refused: Int = 0, dismissed: Bool = false) {
        self.path = path
        self.routines = routines
        self.refused = refused
        self.dismissed = dismissed
    }
}

/// How far an import is, for the LCD.
public struct ImportProgress: Equatable, Sendable {
    /// 1-based index of the routine being imported, of `count`.
    public var routine: Int
    public var count: Int
    public var title: String
    /// 0...100 within the routine.
    public var percent: Int

    public init(routine: Int, count: Int, title: String, percent: Int) {
        self.routine = routine
        self.count = count
        self.title = title
        self.percent = percent
    }
}

/// What an import did, routine by routine.
public struct ImportSummary: Equatable, Sendable {
    public var added: Int
    public var replaced: Int
    public var unchanged: Int
    public var failed: Int
    /// Of those added, how many took a new title ("Songs (2)") beside a different routine of theirs.
    public var renamed: Int
    /// Files and parts on the stick left out of the routines imported (a bad part, a file
    /// that does not decode, a song the manifest does not list): each is named as a problem.
    public var leftOut: Int
    /// Why the import stopped before the end (a full disk, the stick pulled out), if it did.
    public var stopped: String?

    public init(added: Int = 0, replaced: Int = 0, unchanged: Int = 0, failed: Int = 0, renamed: Int = 0,
                leftOut: Int = 0, stopped: String? = nil) {
        self.added = added
        self.replaced = replaced
        self.unchanged = unchanged
        self.failed = failed
        self.renamed = renamed
        self.leftOut = leftOut
        self.stopped = stopped
    }

    /// Whether the performer should look: something failed, stopped or was left out.
    public var hasProblems: Bool { stopped != nil || failed > 0 || leftOut > 0 }

    /// The two lines the LCD shows when the import ends.
    public var lines: [String] {
        if let stopped { return ["Import stopped", stopped] }
        if added + replaced == 0 && failed == 0 && leftOut == 0 { return ["Import done", "nothing changed"] }
        var counts: [String] = []
        if added > 0 { counts.append("\(added) new") }
        if renamed > 0 { counts.append("\(renamed) renamed") }
        if replaced > 0 { counts.append("\(replaced) updated") }
        if unchanged > 0 { counts.append("\(unchanged) same") }
        if failed > 0 { counts.append("\(failed) failed") }
        if leftOut > 0 { counts.append("\(leftOut) left out") }
        let all = counts.joined(separator: ", ")
        // A row of the LCD is 16 cells on 16×2: the counts folded to what came in and what did
        // not (each named in the log and the menu's *Problems*).
        guard all.count > 16 else { return ["Import done", all] }
        let came = added + renamed + replaced, missed = failed + leftOut
        let folded = [came > 0 ? "\(came) in" : nil, unchanged > 0 ? "\(unchanged) same" : nil,
                      missed > 0 ? "\(missed) not in" : nil].compactMap { $0 }
        let changed = folded.filter { !$0.hasSuffix("same") }
        let fitting = [folded.joined(separator: ", "), changed.joined(separator: ", "), changed.joined(separator: " ")]
        return ["Import done", fitting.first { $0.count <= 16 } ?? fitting[2]]
    }
}

/// A stick the mount helper could not mount, and why (it writes one file a stick for the
/// player: deploy/segmance-stick): the LCD names the problem, the log has the whole message.
public struct StickRefusal: Equatable, Sendable {
    public enum Reason: String, Equatable, Sendable {
        /// APFS, a Mac's default: no Linux driver reads it.
        case apfs
        /// BitLocker, LUKS, VeraCrypt.
        case encrypted
        /// No file system anything recognises.
        case unknown
        /// A file system this box has no driver for.
        case unsupported
        /// The driver refused it (damaged, or a mount error).
        case mountFailed = "mount-failed"
    }

    /// The kernel's name of the block device, e.g. `sda1`.
    public var device: String
    /// What blkid (or the helper's own check) said it is, e.g. `apfs`; empty when unknown.
    public var fileSystem: String
    public var reason: Reason
    /// The helper's sentence for the log.
    public var message: String

    public init(device: String, fileSystem: String, reason: Reason, message: String) {
        self.device = device
        self.fileSystem = fileSystem
        self.reason = reason
        self.message = message
    }

    /// The two lines the LCD shows (a problem notice: 15 characters after its "!" on 16x2).
    public var lines: [String] {
        switch reason {
        case .apfs: return ["Stick is APFS", "Reformat: exFAT"]
        case .encrypted:
            return ["Stick encrypted", fileSystem.isEmpty ? "cannot read it" : String(fileSystem.prefix(15))]
        case .unknown: return ["Stick unknown", "Reformat: exFAT"]
        case .unsupported: return ["Stick: \(fileSystem.prefix(8))", "Reformat: exFAT"]
        case .mountFailed: return ["Stick \(fileSystem.prefix(9))", "cannot be read"]
        }
    }
}
