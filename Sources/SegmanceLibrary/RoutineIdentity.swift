import GRDB
import SegmanceCore

/// Which routine of the library an imported one is, so that a routine is replaced only by
/// itself. Candidates are the routines titled as it is, or "Title (n)" (kept beside an
/// earlier one); the first that is the same routine is replaced:
///
/// - a routine the teacher named (a manifest's title, a folder's name) is the one of that
///   title from the same folder of a stick;
/// - any routine is the one whose every song it holds (the same songs, perhaps more), so
///   re-importing loose songs with one song added updates them, and another stick's loose
///   songs (titled by another label, or by none) never replace them;
/// - a routine made on the box (an empty `sourcePath`) is never replaced by an import.
///
/// With none the same, the routine takes its title when free, else the first free
/// "Title (2)", "Title (3)"…: nothing in the library is lost by an import.
enum RoutineIdentity {
    struct Place {
        /// The library's row (id, digest) of the same routine, to replace.
        var same: Row?
        /// The title the routine has in the library.
        var title: String
        /// Kept beside a different routine of its title.
        var beside: Bool
    }

    static func place(_ routine: Routine, sourcePath: String, namedByStick: Bool, _ db: Database) throws -> Place {
        let title = routine.title
        let rows = try Row.fetchAll(db, sql: "SELECT id, title, digest, sourcePath FROM routine")
        let titles = Set(rows.map { $0["title"] as String })
        let candidates = rows.compactMap { row -> (n: Int, row: Row)? in
            copyNumber(of: row["title"], base: title).map { ($0, row) }
        }.sorted { $0.n < $1.n }
        let songs = Set(routine.parts.map(\.audio.id))
        // A routine made on the box (no stick folder) is no stick's to replace.
        for (_, row) in candidates where row["sourcePath"] as String? != "" {
            let same = Place(same: row, title: row["title"], beside: false)
            if !namedByStick, row["sourcePath"] as String? == sourcePath { return same }
            let held = try String.fetchSet(db, sql: "SELECT DISTINCT mediaHash FROM part WHERE routineId = ?",
                                           arguments: [row["id"] as Int64])
            if !held.isEmpty, held.isSubset(of: songs) { return same }
        }
        guard titles.contains(title) else { return Place(same: nil, title: title, beside: false) }
        var n = 2
        while titles.contains(copyTitle(title, n)) { n += 1 }
        return Place(same: nil, title: copyTitle(title, n), beside: true)
    }

    /// "Songs (2)": the n-th routine titled "Songs".
    static func copyTitle(_ title: String, _ n: Int) -> String { "\(title) (\(n))" }

    /// 1 for `base` itself, n for "base (n)", nil for any other title.
    static func copyNumber(of title: String, base: String) -> Int? {
        if title == base { return 1 }
        guard title.hasPrefix(base + " ("), title.hasSuffix(")") else { return nil }
        let digits = title.dropFirst(base.count + 2).dropLast()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits), n >= 2,
              copyTitle(base, n) == title else { return nil }
        return n
    }
}
