import GRDB
import SegmanceCore
import SegmanceStick

/// A routine as the library holds it: what plays (with loops learned on the device in
/// force), what was imported, and the bookkeeping around it.
public struct StoredRoutine: Equatable, Sendable {
    public struct StoredPart: Equatable, Sendable {
        /// The part as it plays: `savedLoop` is the device's loop when one was set there.
        public var part: Part
        /// The loop the manifest gave.
        public var manifestLoop: ABLoop?
        /// Set when the loop was changed on the device (`.some(nil)`: cleared there).
        public var deviceLoop: ABLoop??
        /// The grid it was imported with (manifest or detected); `part.grid` has the
        /// performer's "1" when one was set on the device.
        public var importedGrid: BeatGrid?
        /// The speed the stick gave (percent); `part.speed` is the device's when one was set there.
        public var stickSpeed: Int
        /// Frames of the whole media file the part is cut from.
        public var mediaFrames: Int64
        let id: Int64
        let position: Int
    }

    /// The routine as it plays: its parts are the ones made on the box when there are any.
    public var routine: Routine
    /// The stick's parts (of a routine made on the box: its own).
    public var parts: [StoredPart]
    /// Its parts were made on the box (split, joined, named, deleted; loops named, moves
    /// added or deleted): `routine.parts` are those, the stick's stay in `parts`.
    public var partsMadeOnBox = false
    /// The stick folder it was imported from.
    public var sourcePath: String
    let id: Int64
    let digest: String

    /// Something was made or set on the box (parts, named loops or moves made; a loop set or
    /// cleared, a speed, a "1", whose count-in it uses): what *Save to stick* writes.
    public var changedOnBox: Bool {
        partsMadeOnBox || routine.countdownChoice == .mine || parts.contains { stored in
            stored.deviceLoop != nil || stored.part.grid?.isSetOnTheBox == true
                || stored.part.speed != stored.stickSpeed
        }
    }

    /// The routine exactly as imported (the stick's parts and loops, not the device's).
    public var asImported: Routine {
        var r = routine
        r.countdownChoice = .routine
        r.parts = parts.map { stored in
            var part = stored.part
            part.savedLoop = stored.manifestLoop
            part.grid = stored.importedGrid
            return part
        }
        return r
    }
}

extension Library {
    /// Reads routines (all, or the one titled `title`) from their rows, in natural title order.
    static func storedRoutines(_ db: Database, title: String? = nil) throws -> [StoredRoutine] {
        let filter = title == nil ? "" : " WHERE title = ?"
        let arguments: StatementArguments = title.map { [$0] } ?? []
        var routines: [Int64: StoredRoutine] = [:]
        var order: [Int64] = []
        for row in try Row.fetchAll(db, sql: """
            SELECT id, title, subtitle, countdown, countdownChoice, digest, sourcePath, short FROM routine
            """ + filter, arguments: arguments) {
            let id: Int64 = row["id"]
            order.append(id)
            let choice = (row["countdownChoice"] as String?).flatMap(CountdownChoice.init(rawValue:)) ?? .routine
            routines[id] = StoredRoutine(routine: Routine(title: row["title"], subtitle: row["subtitle"],
                                                          countdown: row["countdown"], parts: [],
                                                          countdownChoice: choice, short: row["short"]),
                                         parts: [], sourcePath: row["sourcePath"], id: id, digest: row["digest"])
        }
        guard !routines.isEmpty else { return [] }
        let routineFilter = title == nil ? "" : " WHERE p.routineId = \(order[0])"
        var moves: [Int64: [Move]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT m.partId, t.name AS type, m.name, m.note, m.cue
            FROM move m JOIN moveType t ON t.id = m.moveTypeId JOIN part p ON p.id = m.partId\(routineFilter)
            ORDER BY m.partId, m.position
            """) {
            moves[row["partId"], default: []].append(
                Move(type: MoveType(row["type"]), name: row["name"], note: row["note"], cue: row["cue"]))
        }
        var loops: [Int64: [NamedLoop]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT l.* FROM partLoop l JOIN part p ON p.id = l.partId\(routineFilter) ORDER BY l.partId, l.position
            """) {
            let loop = NamedLoop(name: row["name"], loop: ABLoop(a: row["a"], b: row["b"]))
            loops[row["partId"], default: []].append(loop)
        }
        for row in try Row.fetchAll(db, sql: """
            SELECT p.id, p.routineId, p.position, p.title, p.mediaHash, p.start, p.length, p.isCut,
                   p.loopA, p.loopB, s.partId IS NOT NULL AS edited, s.a, s.b, media.frames AS mediaFrames,
                   p.beatFrames, p.one, p.gridOrigin, o.one AS savedOne, o.beatFrames AS tappedBeat,
                   sp.speed AS speed, p.stickSpeed, p.short, p.leadIn, p.ramp, p.fadeOut
            FROM part p LEFT JOIN savedLoop s ON s.partId = p.id JOIN media ON media.hash = p.mediaHash
            LEFT JOIN savedOne o ON o.partId = p.id LEFT JOIN partSpeed sp ON sp.partId = p.id\(routineFilter)
            ORDER BY p.routineId, p.position
            """) {
            let id: Int64 = row["id"]
            let start: Int64 = row["start"]
            let length: Int64 = row["length"]
            let manifestLoop = Self.loop(row["loopA"], row["loopB"])
            let deviceLoop: ABLoop?? = row["edited"] ? .some(Self.loop(row["a"], row["b"])) : .none
            let importedGrid = Self.grid(row["beatFrames"], row["one"], row["gridOrigin"])
            var grid = importedGrid
            if let savedOne: Int64 = row["savedOne"], let tapped: Double = row["tappedBeat"] {
                grid = BeatGrid(beatFrames: tapped, one: savedOne, origin: .tapped)
            } else if let savedOne: Int64 = row["savedOne"], let imported = importedGrid {
                grid = BeatGrid(beatFrames: imported.beatFrames, one: savedOne, origin: .performer)
            }
            var part = Part(title: row["title"], audio: AudioReference(row["mediaHash"]),
                            range: row["isCut"] ? start..<(start + length) : nil, length: length,
                            moves: moves[id] ?? [], savedLoop: deviceLoop ?? manifestLoop, grid: grid,
                            speed: row["speed"] ?? 100, stickLoop: manifestLoop, short: row["short"],
                            leadIn: practice(row).leadIn, ramp: practice(row).ramp,
                            fadeOut: row["fadeOut"])
            part.loops = loops[id] ?? []
            let routineId: Int64 = row["routineId"]
            routines[routineId]?.routine.parts.append(part)
            routines[routineId]?.parts.append(StoredRoutine.StoredPart(
                part: part, manifestLoop: manifestLoop, deviceLoop: deviceLoop, importedGrid: importedGrid,
                stickSpeed: (row["stickSpeed"] as Int?) ?? 100,
                mediaFrames: row["mediaFrames"], id: id, position: row["position"]))
        }
        for (routineId, parts) in try boxParts(db, routineId: title == nil ? nil : order[0]) {
            routines[routineId]?.routine.parts = parts
            routines[routineId]?.partsMadeOnBox = true
        }
        return order.compactMap { routines[$0] }.sorted { FileNames.naturalLess($0.routine.title, $1.routine.title) }
    }

    private static func grid(_ beatFrames: Double?, _ one: Int64?, _ origin: String?) -> BeatGrid? {
        guard let beatFrames, beatFrames > 0, let one,
              let origin = origin.flatMap(BeatGrid.Origin.init(rawValue:)) else {
            return nil
        }
        return BeatGrid(beatFrames: beatFrames, one: one, origin: origin)
    }

    static func loop(_ a: Int64?, _ b: Int64?) -> ABLoop? {
        guard let a, let b, b > a else { return nil }
        return ABLoop(a: a, b: b)
    }
}
