import LinuxSystem
import GRDB
import SegmanceCore

/// What a recovery sweep removed.
public struct SweepResult: Equatable, Sendable {
    /// Partial files of an interrupted import.
    public var temporaryFiles: [String] = []
    /// Complete media files no row refers to (an import interrupted before its commit).
    public var orphanMedia: [String] = []
    /// False when an import held the lock, so nothing was looked at.
    public var swept = true

    public var isEmpty: Bool { temporaryFiles.isEmpty && orphanMedia.isEmpty }
}

extension Library {
    /// Removes what an interrupted import left: temporary files and media files no row refers
    /// to. Takes the writer lock (waiting for a running import when `wait`, else giving up).
    public func sweep(wait: Bool) throws -> SweepResult {
        guard let lock = try lockForWriting(wait: wait) else { return SweepResult(swept: false) }
        defer { withExtendedLifetime(lock) {} }
        let known = Set(try read("list the media") { db in try String.fetchAll(db, sql: "SELECT hash FROM media") })
        let contents: (media: Set<String>, temporary: [String])
        do {
            contents = try store.contents()
        } catch {
            throw LibraryError(directory: directory, action: "list the media folder", reason: "\(error)")
        }
        var result = SweepResult()
        for name in contents.temporary {
            try? store.removeFile(named: name)
            result.temporaryFiles.append(name)
        }
        for hash in contents.media.subtracting(known).sorted() {
            try? store.remove(hash)
            result.orphanMedia.append(hash)
        }
        return result
    }

    /// Checks that the library is whole; returns every problem found (none: it is).
    ///
    /// - SQLite's `integrity_check` and `foreign_key_check` pass.
    /// - Every media row has its file, of exactly `frames × 4` bytes (with `deep`, read to
    ///   the end: an SD card's bad sectors show), and every file in the media folder has its row.
    /// - Every routine is complete: parts numbered 0…n−1, each inside its media, and the
    ///   rows give back exactly the digest recorded when the routine was committed.
    public func verify(deep: Bool = false) throws -> [String] {
        var problems: [String] = []
        let (integrity, foreignKeys, media, routines) = try read("check the database") { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"),
             try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { "\($0)" },
             try Row.fetchAll(db, sql: "SELECT hash, frames FROM media").map { (hash: $0["hash"] as String, frames: $0["frames"] as Int64) },
             try Self.storedRoutines(db))
        }
        if integrity != ["ok"] { problems += integrity.map { "integrity_check: \($0)" } }
        problems += foreignKeys.map { "foreign_key_check: \($0)" }
        for m in media {
            switch store.size(of: m.hash) {
            case nil: problems.append("media \(m.hash): file missing")
            case let size? where size != m.frames * MediaStore.bytesPerFrame:
                problems.append("media \(m.hash): \(size) bytes, expected \(m.frames * MediaStore.bytesPerFrame)")
            default:
                if deep, let failure = readThrough(m.hash) {
                    problems.append("media \(m.hash): \(failure)")
                }
            }
        }
        do {
            let contents = try store.contents()
            let known = Set(media.map(\.hash))
            problems += contents.temporary.map { "media folder: leftover temporary file \($0)" }
            problems += contents.media.subtracting(known).sorted().map { "media folder: orphan file \($0).pcm" }
        } catch {
            problems.append("media folder: \(error)")
        }
        let framesOf = Dictionary(media.map { ($0.hash, $0.frames) }, uniquingKeysWith: { a, _ in a })
        for stored in routines {
            let title = stored.routine.title
            if stored.parts.isEmpty { problems.append("routine \"\(title)\": no parts") }
            if stored.parts.map(\.position) != Array(0..<stored.parts.count) {
                problems.append("routine \"\(title)\": parts numbered \(stored.parts.map(\.position))")
            }
            for p in stored.parts {
                let start = p.part.range?.lowerBound ?? 0
                if let frames = framesOf[p.part.audio.id], start + p.part.length > frames {
                    problems.append("routine \"\(title)\", part \"\(p.part.title)\": ends past its media")
                }
            }
            if RoutineDigest.of(stored.asImported) != stored.digest {
                problems.append("routine \"\(title)\": rows do not match the digest committed with it")
            }
        }
        return problems
    }

    /// Reads the media file `hash` to its end; the error, if a read fails.
    private func readThrough(_ hash: String) -> SystemError? {
        do {
            try forEachBlock(ofFile: store.path(of: hash)) { _ in }
            return nil
        } catch {
            return error
        }
    }
}
