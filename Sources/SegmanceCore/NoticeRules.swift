/// Notices never hide what a control changes. Any control removes the notice covering the
/// screen (and the informational ones waiting) before it acts, so what it does shows at
/// once; a notice that arrives while the menu or the moves view is open waits until that
/// closes, and problems still waiting after a control come once the controls rest.
enum NoticeRules {
    /// How long problems still waiting hold back after a control.
    static let quietAfterControl: Int64 = 2_000_000_000

    /// A control came: nothing covers what it is about to change.
    static func controlCame(_ state: inout PlayerState) {
        guard state.notice != nil || !state.pendingNotices.isEmpty else { return }
        state.notice = nil
        state.pendingNotices.removeAll { $0.kind == .info }
        state.noticesHeldUntil = state.pendingNotices.isEmpty ? nil : state.now + quietAfterControl
    }

    /// Every notice gets its turn on the screen: none replaces another, and none covers the
    /// menu or the moves view.
    static func arrived(_ notice: Notice, _ state: inout PlayerState) {
        if state.notice == nil, state.noticesHeldUntil == nil, !covers(state) {
            show(notice, in: &state)
        } else {
            state.pendingNotices.append(notice)
        }
    }

    /// The clock: the notice shown expires, and the next waiting one shows when nothing is
    /// being looked at or changed.
    static func tick(_ state: inout PlayerState) {
        if let shown = state.notice, state.now >= shown.until { state.notice = nil }
        if let held = state.noticesHeldUntil, state.now >= held { state.noticesHeldUntil = nil }
        guard state.notice == nil, state.noticesHeldUntil == nil, !covers(state),
              !state.pendingNotices.isEmpty else { return }
        show(state.pendingNotices.removeFirst(), in: &state)
    }

    /// Whether a notice now would cover something open: the menu, or the moves view.
    static func covers(_ state: PlayerState) -> Bool {
        state.menu != nil || state.view == .moves
    }

    /// `notice` on the screen now, until its duration is over.
    static func show(_ notice: Notice, in state: inout PlayerState) {
        state.notice = ShownNotice(notice: notice, until: state.now + notice.duration)
    }

    /// A short "you can't do that" line, for `Rules.hintDuration`.
    static func hint(_ text: String, _ state: inout PlayerState) {
        show(Notice(.info, [text], duration: Rules.hintDuration), in: &state)
    }
}
