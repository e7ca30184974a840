import GRDB
import SegmanceCore

/// A media file made durable in the store for an import.
package struct StoredMedia: Equatable, Sendable {
    package var hash: String
    package var frames: Int64

    package init(hash: String, frames: Int64) {
        self.hash = hash
        self.frames = frames
    }
}

/// What committing one routine did.
public enum ImportOutcome: String, Equatable, Sendable {
    case added, replaced, unchanged
    /// Added under a new title ("Songs (2)"): a different routine had its title.
    case addedBeside = "added beside"
}

extension Library {
    /// The media named `hash`, if the library holds it (row and file).
    package func media(named hash: String) throws -> StoredMedia? {
        let found = try read("look up media \(hash)") { db -> StoredMedia? in
            try Int64.fetchOne(db, sql: "SELECT frames FROM media WHERE hash = ?", arguments: [hash])
                .map { StoredMedia(hash: hash, frames: $0) }
        }
        // A row without its file would be a broken library; decode again rather than trust it.
        guard let found, store.size(of: found.hash) == found.frames * MediaStore.bytesPerFrame else { return nil }
        return found
    }

    /// Takes the writer lock for an import (waiting when `wait`); nil when held elsewhere.
    package func lockForWriting(wait: Bool) throws -> LibraryLock? {
        do {
            return try LibraryLock(directory: directory, wait: wait)
        } catch {
            throw LibraryError(directory: directory, action: "lock the library", reason: "\(error)")
        }
    }

    /// Commits `routine` from the folder `sourcePath` of a stick, whose parts name media
    /// already durable in the store, in one transaction, and returns the title it has in the
    /// library. Only the same routine is replaced (`RoutineIdentity`): its parts go, and the
    /// loops learned on the device and the resume point move to the new part of the same
    /// title (the n-th of that title) when they still fit. A different routine of the same
    /// title stays; this one is added beside it as "Title (2)". Identical content writes
    /// nothing. Media no longer used is deleted after the commit. `namedByStick`: the title
    /// is the stick's label (loose songs at its root), which names no routine in particular.
    /// Call with the writer lock held.
    package func commit(_ routine: Routine, media: [StoredMedia], sourcePath: String,
                namedByStick: Bool = false) throws -> (outcome: ImportOutcome, title: String) {
        var routine = routine
        let (outcome, unused) = try write("save routine \"\(routine.title)\"") { db -> (ImportOutcome, [String]) in
            let place = try RoutineIdentity.place(routine, sourcePath: sourcePath, namedByStick: namedByStick, db)
            routine.title = place.title
            let digest = RoutineDigest.of(routine)
            let old = place.same
            if let old, old["digest"] == digest { return (.unchanged, []) }
            for m in media {
                try db.execute(sql: "INSERT OR IGNORE INTO media (hash, frames) VALUES (?, ?)",
                               arguments: [m.hash, m.frames])
            }
            var learned: [String: (a: Int64?, b: Int64?)] = [:]
            var learnedOne: [String: (one: Int64, tapped: Double?)] = [:]
            var learnedSpeed: [String: Int] = [:]
            var resume: (key: String, position: Int64)?
            let routineId: Int64
            if let old {
                routineId = old["id"]
                var keys = PartKeys()
                var keyOfPart: [Int64: String] = [:]
                for row in try Row.fetchAll(db, sql: """
                    SELECT p.id, p.title, p.start, p.length, p.isCut,
                           s.partId IS NOT NULL AS edited, s.a, s.b, o.one AS savedOne, o.beatFrames AS tappedBeat
                    FROM part p LEFT JOIN savedLoop s ON s.partId = p.id LEFT JOIN savedOne o ON o.partId = p.id
                    WHERE p.routineId = ? ORDER BY p.position
                    """, arguments: [routineId]) {
                    let start: Int64 = row["start"]
                    let cut: Range<Int64>? = row["isCut"] ? start..<(start + row["length"]) : nil
                    let key = keys.next(row["title"], cut: cut)
                    keyOfPart[row["id"]] = key
                    if row["edited"] { learned[key] = (row["a"], row["b"]) }
                    if let one: Int64 = row["savedOne"] { learnedOne[key] = (one, row["tappedBeat"]) }
                }
                for row in try Row.fetchAll(db, sql: """
                    SELECT p.id, sp.speed FROM part p JOIN partSpeed sp ON sp.partId = p.id
                    WHERE p.routineId = ? AND sp.learned = 1
                    """, arguments: [routineId]) {
                    if let key = keyOfPart[row["id"]] { learnedSpeed[key] = row["speed"] }
                }
                if let row = try Row.fetchOne(db,
                                              sql: "SELECT partId, position FROM resume WHERE id = 1 AND routineId = ?",
                                              arguments: [routineId]),
                   let partId: Int64 = row["partId"], let key = keyOfPart[partId] {
                    resume = (key, row["position"])
                }
                if let made = try Self.boxParts(db, routineId: routineId)[routineId] {
                    // The stick changed under parts made on the box: they are kept as a routine of
                    // their own, "Title (box)", and the stick's new parts play under the title.
                    let aside = Routine(title: try Self.freeTitle(db, routine.title + " (box)"),
                                        subtitle: routine.subtitle, parts: made)
                    let asideId = try Self.insertRoutine(db, aside, sourcePath: "")
                    try db.execute(sql: "UPDATE boxPart SET routineId = ? WHERE routineId = ?",
                                   arguments: [asideId, routineId])
                    try db.execute(sql: "UPDATE resume SET boxPartId = NULL, position = 0 "
                                       + "WHERE id = 1 AND routineId = ?",
                                   arguments: [routineId])
                }
                try db.execute(sql: "DELETE FROM part WHERE routineId = ?", arguments: [routineId])
                try db.execute(sql: """
                    UPDATE routine SET subtitle = ?, countdown = ?, digest = ?, sourcePath = ?, short = ? WHERE id = ?
                    """, arguments: [routine.subtitle, routine.countdown, digest, sourcePath, routine.short, routineId])
                // A resume point whose part is gone restarts the routine.
                try db.execute(sql: "UPDATE resume SET position = 0 WHERE id = 1 AND routineId = ? AND partId IS NULL",
                               arguments: [routineId])
            } else {
                try db.execute(sql: """
                    INSERT INTO routine (title, subtitle, countdown, digest, sourcePath, short)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [routine.title, routine.subtitle, routine.countdown, digest, sourcePath,
                                    routine.short])
                routineId = db.lastInsertedRowID
            }
            var keys = PartKeys()
            for (position, part) in routine.parts.enumerated() {
                let partId = try Self.insertPart(db, part, routineId: routineId, position: position)
                let key = keys.next(part.title, cut: part.range)
                if let speed = learnedSpeed[key] {
                    try db.execute(sql: "INSERT INTO partSpeed (partId, speed, learned) VALUES (?, ?, 1)",
                                   arguments: [partId, speed])
                } else if part.speed != 100 {
                    // The manifest's starting speed; the device's changes replace it (Persist.partSpeed).
                    try db.execute(sql: "INSERT INTO partSpeed (partId, speed, learned) VALUES (?, ?, 0)",
                                   arguments: [partId, part.speed])
                }
                if let loop = learned[key], (loop.b ?? 0) <= part.length {
                    try db.execute(sql: "INSERT INTO savedLoop (partId, a, b) VALUES (?, ?, ?)",
                                   arguments: [partId, loop.a, loop.b])
                }
                // The performer's "1" stays with a part that still has a beat; a tapped tempo with its part.
                if let saved = learnedOne[key], part.grid != nil || saved.tapped != nil {
                    try db.execute(sql: "INSERT INTO savedOne (partId, one, beatFrames) VALUES (?, ?, ?)",
                                   arguments: [partId, saved.one, saved.tapped])
                }
                if let resume, resume.key == key {
                    try db.execute(sql: "UPDATE resume SET partId = ?, position = ? WHERE id = 1",
                                   arguments: [partId, resume.position < part.length ? resume.position : 0])
                }
            }
            let outcome: ImportOutcome = old != nil ? .replaced : place.beside ? .addedBeside : .added
            return (outcome, try Self.dropUnusedMedia(db))
        }
        for hash in unused { try? store.remove(hash) }
        return (outcome, routine.title)
    }
}

/// Names parts across a re-import: the title and the cut (a whole file's part has none), and
/// which of the parts alike it is. A part whose cut changed on the stick is a new part: what
/// the box set for the old one (a loop, a speed, a "1") would not fit it.
struct PartKeys {
    private var seen: [String: Int] = [:]
    mutating func next(_ title: String, cut: Range<Int64>?) -> String {
        let base = "\(title)#" + (cut.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "whole")
        let n = seen[base, default: 0]
        seen[base] = n + 1
        return "\(n)#\(base)"
    }
}
