/// The menu's making entries (`Menu.Item.parts` … `.newRoutine`): an action done at the
/// push, or a list (`Menu.Page.choosing`) whose push does it. A long push goes back.
enum EditMenu {
    /// The push on a making entry of the main page; nil when `item` is not one.
    static func open(_ item: Menu.Item, _ state: inout PlayerState) -> [Effect]? {
        let actions: [Menu.Item: Edit] = [.split: .split, .join: .join, .deleteMove: .deleteMove,
                                          .newRoutine: .newRoutine]
        if let edit = actions[item] {
            // An action, not a value: the menu closes on it.
            state.menu = nil
            return EditRules.apply(edit, &state)
        }
        guard [.parts, .namePart, .deletePart, .loops, .nameLoop, .addMove].contains(item) else { return nil }
        guard let part = state.part else {
            NoticeRules.hint("No routines", &state)
            return []
        }
        switch item {
        case .loops where part.loops.isEmpty:
            NoticeRules.hint("No named loops", &state)
            return []
        case .nameLoop:
            guard case .ab = state.loop else {
                NoticeRules.hint("No A-B loop", &state)
                return []
            }
        default: break
        }
        let cursor: Int
        switch item {
        case .parts: cursor = state.partIndex
        case .namePart: cursor = Names.parts.firstIndex(of: part.title) ?? 0
        case .loops: cursor = part.loops.firstIndex { $0.loop == part.savedLoop } ?? 0
        default: cursor = 0
        }
        // *Add move* keeps the frame heard at this push: the type is chosen after.
        state.menu = Menu(page: .choosing(item), cursor: cursor,
                          at: item == .addMove ? TransportRules.here(state) : nil)
        return []
    }

    /// A push on a row of the list: done, the menu closes. A long push: back to the entry.
    static func choose(_ item: Menu.Item, long: Bool, _ state: inout PlayerState) -> [Effect] {
        guard let menu = state.menu else { return [] }
        let rows = Menu.rows(item, state)
        if long || !rows.indices.contains(menu.cursor) {
            state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: item)!)
            return []
        }
        state.menu = nil
        let row = menu.cursor
        switch item {
        case .parts: return EditRules.apply(.goToPart(row), &state)
        case .namePart: return EditRules.apply(.rename(rows[row]), &state)
        case .deletePart: return EditRules.apply(.deletePart, &state)
        case .loops: return EditRules.apply(.chooseLoop(row), &state)
        case .nameLoop: return EditRules.apply(.nameLoop(rows[row]), &state)
        case .addMove: return EditRules.apply(.addMove(rows[row], at: menu.at), &state)
        default: return []
        }
    }
}
