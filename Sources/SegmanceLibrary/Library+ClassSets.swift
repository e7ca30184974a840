import GRDB
import SegmanceCore

extension Library {
    /// The class sets, in order: a stick's class.toml's first, then those made on the box.
    public func classSets() throws -> [ClassSet] {
        try read("read the class sets") { db in try Self.classSets(db) }
    }

    /// The class sets of a stick's class.toml in place of the ones an earlier stick gave (a set
    /// made on the box of the same name is replaced too). Returns how many there are now.
    @discardableResult
    public func replaceStickClassSets(_ sets: [ClassSet]) throws -> Int {
        try write("save the class sets") { db in
            try db.execute(sql: "DELETE FROM classSet WHERE fromStick = 1")
            for set in sets { try Self.insert(db, set, fromStick: true) }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM classSet") ?? 0
        }
    }

    static func classSets(_ db: Database) throws -> [ClassSet] {
        var tracks: [Int64: [ClassTrack]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM classTrack ORDER BY classSetId, position") {
            tracks[row["classSetId"], default: []].append(ClassTrack(routine: row["routine"], part: row["part"]))
        }
        return try Row.fetchAll(db, sql: "SELECT * FROM classSet ORDER BY fromStick DESC, id").map { row in
            ClassSet(name: row["name"], tracks: tracks[row["id"]] ?? [], gap: row["gap"], announce: row["announce"])
        }
    }

    /// Inserts `set`, replacing one of its name.
    static func insert(_ db: Database, _ set: ClassSet, fromStick: Bool) throws {
        try db.execute(sql: "DELETE FROM classSet WHERE name = ?", arguments: [set.name])
        try db.execute(sql: "INSERT INTO classSet (name, gap, announce, fromStick) VALUES (?, ?, ?, ?)",
                       arguments: [set.name, set.gap, set.announce, fromStick])
        let id = db.lastInsertedRowID
        for (position, track) in set.tracks.enumerated() {
            try db.execute(sql: "INSERT INTO classTrack (classSetId, position, routine, part) VALUES (?, ?, ?, ?)",
                           arguments: [id, position, track.routine, track.part])
        }
    }
}
