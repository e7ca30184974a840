/// The problems view: every problem of the last stick, one at a time, its file first and
/// its reason whole, wrapped over pages of the display and paged with the encoder.
public enum ProblemsRules {
    /// The pages of every problem, in order; a problem starts on a page of its own. Each
    /// page has at most `display.rows` lines of at most `display.columns` characters.
    public static func pages(_ problems: [FileProblem], _ display: DisplaySize) -> [[String]] {
        var pages: [[String]] = []
        for (i, problem) in problems.enumerated() {
            let lines = wrap("\(i + 1) of \(problems.count): \(problem.file)", display.columns)
                + wrap(problem.reason, display.columns)
            pages += stride(from: 0, to: lines.count, by: display.rows).map {
                Array(lines[$0..<min($0 + display.rows, lines.count)])
            }
        }
        return pages
    }

    /// `text` in lines of at most `width` characters, broken at spaces; a word longer than a
    /// line is broken after a "/" where it can be, else where the line ends.
    public static func wrap(_ text: String, _ width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            if !line.isEmpty, line.count + 1 + word.count <= width {
                line += " " + word
                continue
            }
            var rest = Substring(word)
            // A path too long for a line starts where the line has room, up to a "/".
            let room = width - line.count - 1
            if !line.isEmpty, rest.count > width, room > 0,
               let slash = rest.prefix(room).lastIndex(of: "/") {
                line += " " + rest[...slash]
                rest = rest[rest.index(after: slash)...]
            }
            if !line.isEmpty { lines.append(line) }
            while rest.count > width {
                let head = rest.prefix(width)
                let cut = head.lastIndex(of: "/").map { rest.index(after: $0) } ?? head.endIndex
                lines.append(String(rest[..<cut]))
                rest = rest[cut...]
            }
            line = String(rest)
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// The entry's push: the first page of the first problem (nothing to show, a hint).
    static func open(_ state: inout PlayerState) -> [Effect] {
        guard !state.problems.isEmpty else {
            NoticeRules.hint("No problems", &state)
            return []
        }
        state.problemsUnread = false
        state.menu = Menu(page: .problems, cursor: 0)
        return []
    }

    /// A detent a page, across the problems, stopping at the first and the last.
    static func turn(_ detents: Int, _ state: inout PlayerState) {
        guard var menu = state.menu else { return }
        let count = pages(state.problems, state.display).count
        menu.cursor = min(max(menu.cursor + detents, 0), max(0, count - 1))
        state.menu = menu
    }

    /// A push or a long push leaves the view, back on its entry.
    static func leave(_ state: inout PlayerState) {
        state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .problems)!)
    }

    /// A new import: the last stick's problems go (a refused stick's stay until then: a Mac's
    /// stick has a readable EFI partition beside the APFS one).
    static func newStick(_ state: inout PlayerState) {
        state.problems = []
        state.problemsUnread = false
    }

    /// A problem of the stick being read: kept for the view.
    static func found(_ problem: FileProblem, _ state: inout PlayerState) {
        state.problems.append(problem)
        state.problemsUnread = true
    }

    /// After the summary: how many problems there are and where to read them.
    static func summary(_ state: PlayerState) -> Notice? {
        guard !state.problems.isEmpty else { return nil }
        let count = state.problems.count == 1 ? "1 problem" : "\(state.problems.count) problems"
        return Notice(.problem, [count, "Menu: Problems"], duration: 4_000_000_000)
    }
}
