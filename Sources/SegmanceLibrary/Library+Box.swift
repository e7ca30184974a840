import GRDB
import SegmanceCore

/// The row of a part a `Persist` names: the stick's, or the box's when the routine's parts
/// were made on the box (then those are the parts that play).
enum PartRow {
    case stick(routineId: Int64, partId: Int64)
    case box(routineId: Int64, boxPartId: Int64)
}

extension Library {
    /// The part at `part` titled `title` of the routine titled `routine` (by title when its
    /// place moved), in the layer that plays; nil when there is none.
    static func partRow(_ db: Database, routine: String, part: Int, title: String) throws -> PartRow? {
        guard let routineId = try Int64.fetchOne(db, sql: "SELECT id FROM routine WHERE title = ?",
                                                 arguments: [routine]) else { return nil }
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM boxPart WHERE routineId = ?)",
                                arguments: [routineId]) == true else {
            return try partId(db, routine: routine, part: part, title: title)
                .map { .stick(routineId: $0.0, partId: $0.1) }
        }
        let id = try Int64.fetchOne(db,
                                    sql: "SELECT id FROM boxPart WHERE routineId = ? AND position = ? AND title = ?",
                                    arguments: [routineId, part, title])
            ?? Int64.fetchOne(db, sql: "SELECT id FROM boxPart WHERE routineId = ? AND title = ? ORDER BY position",
                              arguments: [routineId, title])
        return id.map { .box(routineId: routineId, boxPartId: $0) }
    }

    /// The routine's parts as made on the box, in place of the ones it had there (the stick's
    /// rows stay as they are). The resume point in one of them stays at its place.
    static func writeBoxParts(_ db: Database, routine: String, parts: [Part]) throws -> Bool {
        guard let routineId = try Int64.fetchOne(db, sql: "SELECT id FROM routine WHERE title = ?",
                                                 arguments: [routine]) else { return false }
        let resumeAt = try Int.fetchOne(db, sql: """
            SELECT bp.position FROM resume JOIN boxPart bp ON bp.id = resume.boxPartId
            WHERE resume.id = 1 AND bp.routineId = ?
            """, arguments: [routineId])
        try db.execute(sql: "DELETE FROM boxPart WHERE routineId = ?", arguments: [routineId])
        for (position, part) in parts.enumerated() {
            let own = part.savedLoop != part.stickLoop
            try db.execute(sql: """
                INSERT INTO boxPart (routineId, position, title, short, mediaHash, start, length, isCut, stickA, stickB,
                                     loopSet, loopA, loopB, beatFrames, one, gridOrigin, speed, leadIn, ramp, fadeOut)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [routineId, position, part.title, part.short, part.audio.id,
                                 part.range?.lowerBound ?? 0, part.length, part.range != nil,
                                 part.stickLoop?.a, part.stickLoop?.b, own,
                                 own ? part.savedLoop?.a : nil, own ? part.savedLoop?.b : nil,
                                 part.grid?.beatFrames, part.grid?.one, boxOrigin(part.grid), part.speed,
                                 part.leadIn?.description, part.ramp?.description, part.fadeOut])
            let id = db.lastInsertedRowID
            for (m, move) in part.moves.enumerated() {
                try db.execute(sql: "INSERT INTO boxMove (boxPartId, position, type, name, note, cue) "
                                   + "VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [id, m, move.type.name, move.name, move.note, move.cue])
            }
            for (l, named) in part.loops.enumerated() {
                try db.execute(sql: "INSERT INTO boxLoop (boxPartId, position, name, a, b) VALUES (?, ?, ?, ?, ?)",
                               arguments: [id, l, named.name, named.loop.a, named.loop.b])
            }
            if resumeAt == position {
                try db.execute(sql: "UPDATE resume SET boxPartId = ? WHERE id = 1", arguments: [id])
            }
        }
        return true
    }

    /// The parts made on the box of each routine that has them (of `routineId` only, when
    /// given), in order.
    static func boxParts(_ db: Database, routineId: Int64? = nil) throws -> [Int64: [Part]] {
        let filter = routineId.map { " WHERE bp.routineId = \($0)" } ?? ""
        var moves: [Int64: [Move]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT m.* FROM boxMove m JOIN boxPart bp ON bp.id = m.boxPartId\(filter) ORDER BY m.boxPartId, m.position
            """) {
            moves[row["boxPartId"], default: []].append(
                Move(type: MoveType(row["type"]), name: row["name"], note: row["note"], cue: row["cue"]))
        }
        var loops: [Int64: [NamedLoop]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT l.* FROM boxLoop l JOIN boxPart bp ON bp.id = l.boxPartId\(filter) ORDER BY l.boxPartId, l.position
            """) {
            let loop = NamedLoop(name: row["name"], loop: ABLoop(a: row["a"], b: row["b"]))
            loops[row["boxPartId"], default: []].append(loop)
        }
        var parts: [Int64: [Part]] = [:]
        let rows = try Row.fetchAll(db, sql: "SELECT bp.* FROM boxPart bp\(filter) ORDER BY bp.routineId, bp.position")
        for row in rows {
            let start: Int64 = row["start"], length: Int64 = row["length"]
            let stick = loop(row["stickA"], row["stickB"])
            var grid: BeatGrid?
            if let beatFrames: Double = row["beatFrames"], let one: Int64 = row["one"],
               let origin = (row["gridOrigin"] as String?).flatMap(BeatGrid.Origin.init(rawValue:)) {
                grid = BeatGrid(beatFrames: beatFrames, one: one, origin: origin)
            }
            let loopSet: Bool = row["loopSet"]
            var part = Part(title: row["title"], audio: AudioReference(row["mediaHash"]),
                            range: row["isCut"] ? start..<(start + length) : nil, length: length,
                            moves: moves[row["id"]] ?? [],
                            savedLoop: loopSet ? loop(row["loopA"], row["loopB"]) : stick,
                            grid: grid, speed: row["speed"], stickLoop: stick, short: row["short"],
                            leadIn: practice(row).leadIn, ramp: practice(row).ramp,
                            fadeOut: row["fadeOut"])
            part.loops = loops[row["id"]] ?? []
            parts[row["routineId"], default: []].append(part)
        }
        return parts
    }

    /// A part row's `leadIn` and `ramp` (the "practice" migration); a value that is not one is none.
    static func practice(_ row: Row) -> (leadIn: LeadIn?, ramp: SpeedRamp?) {
        ((row["leadIn"] as String?).flatMap(LeadIn.init(text:)),
         (row["ramp"] as String?).flatMap(SpeedRamp.init(stored:)))
    }

    /// Inserts a routine made on the box (no stick: an empty `sourcePath`) of whole songs, one
    /// part each, under `title` or the first free "Title (2)"… Songs the library does not hold are left out.
    static func insertMadeRoutine(_ db: Database, title: String, songs: [Song]) throws -> Bool {
        var parts: [Part] = []
        for song in songs {
            guard let frames = try Int64.fetchOne(db, sql: "SELECT frames FROM media WHERE hash = ?",
                                                  arguments: [song.audio.id]) else { continue }
            parts.append(Part(title: song.title, audio: song.audio, length: frames))
        }
        guard !parts.isEmpty else { return false }
        _ = try insertRoutine(db, Routine(title: try freeTitle(db, title), parts: parts), sourcePath: "")
        return true
    }

    /// `title`, or the first "Title (n)" no routine has.
    static func freeTitle(_ db: Database, _ title: String) throws -> String {
        let titles = try String.fetchSet(db, sql: "SELECT title FROM routine")
        guard titles.contains(title) else { return title }
        var n = 2
        while titles.contains(RoutineIdentity.copyTitle(title, n)) { n += 1 }
        return RoutineIdentity.copyTitle(title, n)
    }

    /// Inserts `routine` as the stick's rows: the loop in force is its own, a "1" set on the
    /// box its beat, a speed its speed. Returns the routine's id.
    static func insertRoutine(_ db: Database, _ routine: Routine, sourcePath: String) throws -> Int64 {
        var stored = routine
        for i in stored.parts.indices {
            stored.parts[i].stickLoop = stored.parts[i].savedLoop
            if let grid = stored.parts[i].grid, grid.isSetOnTheBox {
                stored.parts[i].grid = BeatGrid(beatFrames: grid.beatFrames, one: grid.one, origin: .manifest)
            }
        }
        try db.execute(sql: """
            INSERT INTO routine (title, subtitle, countdown, digest, sourcePath, short) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [stored.title, stored.subtitle, stored.countdown, RoutineDigest.of(stored), sourcePath,
                             stored.short])
        let routineId = db.lastInsertedRowID
        for (position, part) in stored.parts.enumerated() {
            let partId = try insertPart(db, part, routineId: routineId, position: position)
            if part.speed != 100 {
                try db.execute(sql: "INSERT INTO partSpeed (partId, speed, learned) VALUES (?, ?, 0)",
                               arguments: [partId, part.speed])
            }
        }
        return routineId
    }

    /// Inserts the stick's rows of `part` (its moves and named loops with it); returns its id.
    static func insertPart(_ db: Database, _ part: Part, routineId: Int64, position: Int) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO part (routineId, position, title, mediaHash, start, length, isCut, loopA, loopB,
                              beatFrames, one, gridOrigin, stickSpeed, short, leadIn, ramp, fadeOut)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [routineId, position, part.title, part.audio.id, part.range?.lowerBound ?? 0,
                             part.length, part.range != nil, part.savedLoop?.a, part.savedLoop?.b,
                             part.grid?.beatFrames, part.grid?.one, part.grid?.origin.rawValue,
                             part.speed == 100 ? nil : part.speed, part.short,
                             part.leadIn?.description, part.ramp?.description, part.fadeOut])
        let partId = db.lastInsertedRowID
        for (m, move) in part.moves.enumerated() {
            try db.execute(sql: "INSERT OR IGNORE INTO moveType (name) VALUES (?)", arguments: [move.type.name])
            try db.execute(sql: """
                INSERT INTO move (partId, position, moveTypeId, name, note, cue)
                VALUES (?, ?, (SELECT id FROM moveType WHERE name = ?), ?, ?, ?)
                """, arguments: [partId, m, move.type.name, move.name, move.note, move.cue])
        }
        for (l, named) in part.loops.enumerated() {
            try db.execute(sql: "INSERT INTO partLoop (partId, position, name, a, b) VALUES (?, ?, ?, ?, ?)",
                           arguments: [partId, l, named.name, named.loop.a, named.loop.b])
        }
        return partId
    }
}
