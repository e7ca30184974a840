import Foundation
import LinuxSystem
import GRDB
import SegmanceCore
#if canImport(Glibc)
import Glibc
#endif

/// A library operation failed: which library, what it was doing, and why.
public struct LibraryError: Error, CustomStringConvertible, Sendable {
    public var directory: String
    public var action: String
    public var reason: String
    /// The disk the library is on is full.
    public var isDiskFull: Bool

    public init(directory: String, action: String, reason: String, isDiskFull: Bool = false) {
        self.directory = directory
        self.action = action
        self.reason = reason
        self.isDiskFull = isDiskFull
    }

    init(directory: String, action: String, error: any Error) {
        let full = (error as? DatabaseError)?.resultCode == .SQLITE_FULL || (error as? SystemError)?.isDiskFull == true
        self.init(directory: directory, action: action, reason: "\(error)", isDiskFull: full)
    }

    public var description: String { "library \(directory): cannot \(action): \(reason)" }
}

/// The routine library: SQLite (through GRDB, WAL mode) in `library.sqlite`, and the PCM
/// media store in `media/`, both in one directory (/var/lib/segmance on the device).
///
/// Thread-safe: the control loop reads and writes small things (resume, loops, settings)
/// while an import runs on a worker thread; SQLite's WAL lets readers go on during a write.
public final class Library: Sendable {
    /// The default library directory on the device.
    public static let defaultDirectory = "/var/lib/segmance"

    public let directory: String
    /// Frames per second of every stored PCM file and every frame count in the database.
    public let sampleRate: Int
    public let store: MediaStore
    let pool: DatabasePool
    /// The folder goes with the library (`temporary`).
    private let removesDirectory: Bool

    public var databasePath: String { directory + "/library.sqlite" }

    /// Opens the library in `directory`, creating it when missing, and brings the schema up
    /// to date. With `recover`, removes what an interrupted import left behind (temporary
    /// files, media no row refers to) — unless an import holds the lock right now.
    public convenience init(directory: String, sampleRate: Int = 48_000, recover: Bool = true,
                            reserve: Int64 = MediaStore.defaultReserve) throws {
        try self.init(directory: directory, sampleRate: sampleRate, recover: recover, reserve: reserve,
                      removesDirectory: false)
    }

    /// A library in a fresh folder under the temporary directory, removed with everything in
    /// it when the library goes: the simulator's and the twin's when no library is named.
    public static func temporary(_ label: String, sampleRate: Int = 48_000) throws -> Library {
        let directory: String
        do {
            directory = try Directory.makeUnique(prefix: NSTemporaryDirectory() + "\(label)-").path
        } catch {
            throw LibraryError(directory: NSTemporaryDirectory(), action: "create a temporary library", error: error)
        }
        do {
            return try Library(directory: directory, sampleRate: sampleRate, recover: true,
                               reserve: MediaStore.defaultReserve, removesDirectory: true)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    private init(directory: String, sampleRate: Int, recover: Bool, reserve: Int64, removesDirectory: Bool) throws {
        self.directory = directory
        self.sampleRate = sampleRate
        self.removesDirectory = removesDirectory
        func fail(_ action: String, _ error: any Error) -> LibraryError {
            LibraryError(directory: directory, action: action, reason: "\(error)")
        }
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw fail("create the folder", SystemError("mkdir", path: directory))
        }
        do {
            store = try MediaStore(directory: directory + "/media", reserve: reserve)
        } catch {
            throw fail("create the media folder", error)
        }
        var configuration = Configuration()
        configuration.label = "library"
        // Another process (an import over ssh) may be writing: wait for it rather than fail.
        configuration.busyMode = .timeout(10)
        do {
            pool = try DatabasePool(path: directory + "/library.sqlite", configuration: configuration)
            // A committed import, setting or resume point must survive a power cut; writes are
            // rare, so the cost is too. Set here, not in prepareDatabase: GRDB turns WAL on
            // after that and sets `synchronous = NORMAL` with it, so commits reached the disk
            // only at the next checkpoint (Tests/System/power-cut.sh found acknowledged imports
            // gone after a cut).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            // The write-ahead log is checkpointed every 128 pages (512 KB at SQLite's 4 KB pages),
            // not 1,000: it then stays well inside the room a media file leaves free (`MediaStore.reserve`).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 128") }
            try LibrarySchema.migrator.migrate(pool)
        } catch {
            throw fail("open \(directory)/library.sqlite", error)
        }
        let stored = try write("record the sample rate") { db -> Int in
            if let text = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'sampleRate'"),
               let rate = Int(text) {
                return rate
            }
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('sampleRate', ?)", arguments: ["\(sampleRate)"])
            return sampleRate
        }
        guard stored == sampleRate else {
            throw LibraryError(directory: directory, action: "open it at \(sampleRate) Hz",
                               reason: "its audio is stored at \(stored) Hz "
                                   + "(import the routines again into a new library)")
        }
        if recover { _ = try sweep(wait: false) }
    }

    deinit {
        if removesDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    // MARK: - Reading

    /// Every routine, in natural title order, with the loops learned on the device in force.
    public func routines() throws -> [Routine] {
        try read("read the routines") { db in try Self.storedRoutines(db).map(\.routine) }
    }

    /// What the appliance needs at boot, read at one instant: routines, settings, resume.
    public func snapshot() throws -> LibrarySnapshot {
        try read("read the library") { db in
            LibrarySnapshot(routines: try Self.storedRoutines(db).map(\.routine),
                            settings: try Self.settings(db), resume: try Self.resume(db),
                            classSets: try Self.classSets(db))
        }
    }

    /// The saved settings, nil when none were ever saved.
    public func settings() throws -> Settings? {
        try read("read the settings") { db in try Self.settings(db) }
    }

    /// Where the performer left off.
    public func resume() throws -> ResumePoint? {
        try read("read the resume point") { db in try Self.resume(db) }
    }

    /// The routine titled `title`, with where it came from.
    public func routine(titled title: String) throws -> StoredRoutine? {
        try read("read routine \"\(title)\"") { db in try Self.storedRoutines(db, title: title).first }
    }

    /// Every routine with where it came from, for listings.
    public func storedRoutines() throws -> [StoredRoutine] {
        try read("read the routines") { db in try Self.storedRoutines(db) }
    }

    /// The frame count of the media named `hash`, nil when the library has none.
    public func mediaFrames(_ hash: String) throws -> Int64? {
        try read("read media \(hash)") { db in
            try Int64.fetchOne(db, sql: "SELECT frames FROM media WHERE hash = ?", arguments: [hash])
        }
    }

    // MARK: - Writing

    /// Writes what the core asked to keep. A routine or part that is no longer in the
    /// library (removed meanwhile) is skipped: returns false.
    @discardableResult
    public func apply(_ persist: Persist) throws -> Bool {
        try write("save \(persist)") { db in
            switch persist {
            case .settings(let settings):
                for (key, value) in Self.settingRows(settings) {
                    try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)",
                                   arguments: [key, value])
                }
                return true
            case .resume(let point):
                switch try Self.partRow(db, routine: point.routine, part: point.part, title: point.partTitle) {
                case .stick(let routineId, let partId):
                    try db.execute(sql: """
                        INSERT OR REPLACE INTO resume (id, routineId, partId, position, boxPartId)
                        VALUES (1, ?, ?, ?, NULL)
                        """, arguments: [routineId, partId, point.position])
                case .box(let routineId, let boxPartId):
                    try db.execute(sql: """
                        INSERT OR REPLACE INTO resume (id, routineId, partId, position, boxPartId)
                        VALUES (1, ?, NULL, ?, ?)
                        """, arguments: [routineId, point.position, boxPartId])
                case nil: return false
                }
                return true
            case .grid(let routine, let part, let title, let grid):
                switch try Self.partRow(db, routine: routine, part: part, title: title) {
                case .stick(_, let partId):
                    try db.execute(sql: "INSERT OR REPLACE INTO savedOne (partId, one, beatFrames) VALUES (?, ?, ?)",
                                   arguments: [partId, grid.one, grid.origin == .tapped ? grid.beatFrames : nil])
                case .box(_, let id):
                    try db.execute(sql: "UPDATE boxPart SET beatFrames = ?, one = ?, gridOrigin = ? WHERE id = ?",
                                   arguments: [grid.beatFrames, grid.one, Self.boxOrigin(grid), id])
                case nil: return false
                }
                return true
            case .savedLoop(let routine, let part, let title, let loop):
                switch try Self.partRow(db, routine: routine, part: part, title: title) {
                case .stick(_, let partId):
                    try db.execute(sql: "INSERT OR REPLACE INTO savedLoop (partId, a, b) VALUES (?, ?, ?)",
                                   arguments: [partId, loop?.a, loop?.b])
                case .box(_, let id):
                    try db.execute(sql: "UPDATE boxPart SET loopSet = 1, loopA = ?, loopB = ? WHERE id = ?",
                                   arguments: [loop?.a, loop?.b, id])
                case nil: return false
                }
                return true
            case .partSpeed(let routine, let part, let title, let speed):
                switch try Self.partRow(db, routine: routine, part: part, title: title) {
                case .stick(_, let partId):
                    try db.execute(sql: "INSERT OR REPLACE INTO partSpeed (partId, speed, learned) VALUES (?, ?, 1)",
                                   arguments: [partId, Rules.clampSpeed(speed)])
                case .box(_, let id):
                    try db.execute(sql: "UPDATE boxPart SET speed = ? WHERE id = ?",
                                   arguments: [Rules.clampSpeed(speed), id])
                case nil: return false
                }
                return true
            case .partPractice(let routine, let part, let title, let leadIn, let ramp):
                let table: String, id: Int64
                switch try Self.partRow(db, routine: routine, part: part, title: title) {
                case .stick(_, let partId): (table, id) = ("part", partId)
                case .box(_, let boxId): (table, id) = ("boxPart", boxId)
                case nil: return false
                }
                try db.execute(sql: "UPDATE \(table) SET leadIn = ?, ramp = ? WHERE id = ?",
                               arguments: [leadIn?.description, ramp?.description, id])
                return true
            case .countdownChoice(let routine, let choice):
                try db.execute(sql: "UPDATE routine SET countdownChoice = ? WHERE title = ?",
                               arguments: [choice == .routine ? nil : choice.rawValue, routine])
                return db.changesCount > 0
            case .stickLoopBack(let routine, let part, let title):
                switch try Self.partRow(db, routine: routine, part: part, title: title) {
                case .stick(_, let partId):
                    try db.execute(sql: "DELETE FROM savedLoop WHERE partId = ?", arguments: [partId])
                case .box(_, let id):
                    try db.execute(sql: "UPDATE boxPart SET loopSet = 0, loopA = NULL, loopB = NULL WHERE id = ?",
                                   arguments: [id])
                case nil: return false
                }
                return true
            case .parts(let routine, let parts):
                return try Self.writeBoxParts(db, routine: routine, parts: parts)
            case .newRoutine(let title, let songs):
                return try Self.insertMadeRoutine(db, title: title, songs: songs)
            case .classSet(let set):
                try Self.insert(db, set, fromStick: false)
                return true
            }
        }
    }

    /// Forgets what the box set for the routine titled `title` (its teacher's layer: loops set
    /// or cleared, speeds, the "1"s, whose count-in it uses, parts made on the box), so the stick's values are in
    /// force again. False when there is no such routine.
    @discardableResult
    public func restoreStickValues(titled title: String) throws -> Bool {
        try write("restore the stick's values of \"\(title)\"") { db in
            guard let routineId = try Int64.fetchOne(db, sql: "SELECT id FROM routine WHERE title = ?",
                                                     arguments: [title]) else { return false }
            let parts = "SELECT id FROM part WHERE routineId = ?"
            try db.execute(sql: "DELETE FROM savedLoop WHERE partId IN (\(parts))", arguments: [routineId])
            try db.execute(sql: "DELETE FROM savedOne WHERE partId IN (\(parts))", arguments: [routineId])
            try db.execute(sql: "DELETE FROM partSpeed WHERE partId IN (\(parts))", arguments: [routineId])
            try db.execute(sql: """
                INSERT INTO partSpeed (partId, speed, learned)
                SELECT id, stickSpeed, 0 FROM part WHERE routineId = ? AND stickSpeed IS NOT NULL
                """, arguments: [routineId])
            try db.execute(sql: "UPDATE routine SET countdownChoice = NULL WHERE id = ?", arguments: [routineId])
            // The parts made on the box too: the stick's play again.
            try db.execute(sql: "DELETE FROM boxPart WHERE routineId = ?", arguments: [routineId])
            return true
        }
    }

    /// Removes the routine titled `title` and the media only it used. False when there is none.
    @discardableResult
    public func remove(titled title: String) throws -> Bool {
        let lock: LibraryLock?
        do {
            lock = try LibraryLock(directory: directory, wait: true)
        } catch {
            throw LibraryError(directory: directory, action: "lock the library", reason: "\(error)")
        }
        defer { withExtendedLifetime(lock) {} }
        let (removed, unused) = try write("remove routine \"\(title)\"") { db -> (Bool, [String]) in
            try db.execute(sql: "DELETE FROM routine WHERE title = ?", arguments: [title])
            guard db.changesCount > 0 else { return (false, []) }
            return (true, try Self.dropUnusedMedia(db))
        }
        for hash in unused { try? store.remove(hash) }
        return removed
    }

    // MARK: - Helpers

    func read<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw LibraryError(directory: directory, action: action, error: error)
        }
    }

    /// Runs `body` in a write transaction; a failure says which `action` failed. `action` is
    /// made only then: the daemon saves while playing, and describing a `Persist` by
    /// reflection took most of a save's time on the control loop.
    func write<T>(_ action: @autoclosure () -> String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.write(body)
        } catch {
            throw LibraryError(directory: directory, action: action(), error: error)
        }
    }

    /// Deletes media rows no part refers to; returns their hashes (files to unlink after commit).
    static func dropUnusedMedia(_ db: Database) throws -> [String] {
        let unused = try String.fetchAll(db, sql: """
            SELECT hash FROM media
            WHERE hash NOT IN (SELECT mediaHash FROM part) AND hash NOT IN (SELECT mediaHash FROM boxPart) ORDER BY hash
            """)
        for hash in unused { try db.execute(sql: "DELETE FROM media WHERE hash = ?", arguments: [hash]) }
        return unused
    }

    /// The rows of (routine, part index) — by index when its title still matches, else by title.
    static func partId(_ db: Database, routine: String, part: Int, title: String) throws -> (Int64, Int64)? {
        guard let routineId = try Int64.fetchOne(db, sql: "SELECT id FROM routine WHERE title = ?",
                                                 arguments: [routine]) else { return nil }
        if let id = try Int64.fetchOne(db,
                                       sql: "SELECT id FROM part WHERE routineId = ? AND position = ? AND title = ?",
                                       arguments: [routineId, part, title])
            ?? Int64.fetchOne(db, sql: "SELECT id FROM part WHERE routineId = ? AND title = ? ORDER BY position",
                              arguments: [routineId, title]) {
            return (routineId, id)
        }
        return nil
    }

    /// A grid's origin as a box part's row keeps it: a tapped one as the performer's.
    static func boxOrigin(_ grid: BeatGrid?) -> String? {
        guard let grid else { return nil }
        return grid.origin == .tapped ? BeatGrid.Origin.performer.rawValue : grid.origin.rawValue
    }

    /// The settings as stored: one `(key, value)` row each.
    public static func settingRows(_ s: Settings) -> [(String, String)] {
        [("countdown", "\(s.countdown)"), ("countdownBeforeRepeat", s.countdownBeforeRepeat ? "1" : "0"),
         ("atPartEnd", s.atPartEnd.rawValue), ("volume", "\(s.volume)"), ("autoImport", s.autoImport ? "1" : "0"),
         ("loopPause", "\(s.loopPause)"), ("loopPasses", "\(s.loopPasses)"), ("lightIdle", "\(s.lightIdle)"),
         ("countdownBeats", "\(s.countdownBeats)"), ("loopSnap", s.loopSnap.rawValue), ("turnBy", s.turnBy.rawValue),
         ("countVoice", s.countVoice.rawValue), ("stopFade", "\(s.stopFade)")]
    }

    /// Settings from their rows; a value that makes no sense (edited by hand) keeps its default.
    static func settings(_ db: Database) throws -> Settings? {
        let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM setting")
        guard !rows.isEmpty else { return nil }
        var values: [String: String] = [:]
        for row in rows { values[row["key"]] = row["value"] }
        var s = Settings()
        if let v = values["countdown"].flatMap(Int.init), Settings.countdownChoices.contains(v) { s.countdown = v }
        if let v = values["countdownBeforeRepeat"] { s.countdownBeforeRepeat = v == "1" }
        if let v = values["atPartEnd"].flatMap(PartEndBehavior.init(rawValue:)) { s.atPartEnd = v }
        if let v = values["volume"].flatMap(Int.init), (0...100).contains(v) { s.volume = v }
        if let v = values["autoImport"] { s.autoImport = v == "1" }
        if let v = values["loopPause"].flatMap(Int.init), Settings.loopPauseChoices.contains(v) { s.loopPause = v }
        if let v = values["loopPasses"].flatMap(Int.init), Settings.loopPassesChoices.contains(v) { s.loopPasses = v }
        if let v = values["lightIdle"].flatMap(Int.init), Settings.lightIdleChoices.contains(v) { s.lightIdle = v }
        if let v = values["countdownBeats"].flatMap(Int.init), Settings.countInBeatChoices.contains(v) {
            s.countdownBeats = v
        }
        if let v = values["loopSnap"].flatMap(LoopSnap.init(rawValue:)) { s.loopSnap = v }
        if let v = values["turnBy"].flatMap(TurnUnit.init(rawValue:)) { s.turnBy = v }
        if let v = values["countVoice"].flatMap(CountVoice.init(rawValue:)) { s.countVoice = v }
        if let v = values["stopFade"].flatMap(Int.init), Settings.stopFadeChoices.contains(v) { s.stopFade = v }
        return s
    }

    static func resume(_ db: Database) throws -> ResumePoint? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT r.title AS routine, coalesce(bp.position, p.position) AS part,
                   coalesce(bp.title, p.title) AS partTitle, resume.position AS position
            FROM resume JOIN routine r ON r.id = resume.routineId
            LEFT JOIN part p ON p.id = resume.partId LEFT JOIN boxPart bp ON bp.id = resume.boxPartId
            WHERE resume.id = 1
            """) else { return nil }
        guard let part: Int = row["part"] else {
            // The part went away in a re-import: the routine, from its start.
            return ResumePoint(routine: row["routine"], part: 0, partTitle: "", position: 0)
        }
        return ResumePoint(routine: row["routine"], part: part, partTitle: row["partTitle"], position: row["position"])
    }
}
