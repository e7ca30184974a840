/// Sticks coming and going, and the import: offered with "Push to import" (or started at
/// once with the *Auto import* setting), progress on the LCD, a summary at the end.
enum StickRules {
    static func inserted(_ offer: StickOffer, _ state: inout PlayerState) -> [Effect] {
        // With nothing to import there is nothing to offer: the performer is told what was looked for.
        guard offer.routines > 0 || offer.refused > 0 else {
            NoticeRules.arrived(Notice(.problem, noMusic, duration: refusalDuration), &state)
            return []
        }
        var count = offer.routines == 1 ? "1 routine" : "\(offer.routines) routines"
        if offer.refused > 0 {
            count += ", \(offer.refused) bad"
            // A row of the LCD is 16 cells on 16×2.
            if count.count > 16 { count = "\(offer.routines) ok, \(offer.refused) bad" }
        }
        NoticeRules.arrived(Notice(offer.refused > 0 ? .problem : .info, ["Stick found", count]), &state)
        guard offer.routines > 0 else { return [] }
        // One import at a time.
        guard state.importing == nil else { return [] }
        state.stick = offer
        return state.settings.autoImport ? startImport(&state) : []
    }

    /// Push on the offer imports; a long push says not now.
    static func answer(long: Bool, _ state: inout PlayerState) -> [Effect] {
        if long {
            state.stick?.dismissed = true
            return []
        }
        return startImport(&state)
    }

    static func startImport(_ state: inout PlayerState) -> [Effect] {
        guard let stick = state.stick, state.importing == nil else { return [] }
        state.stick?.dismissed = false
        state.importing = ImportProgress(routine: 1, count: stick.routines, title: "", percent: 0)
        ProblemsRules.newStick(&state)
        return [.importStick(path: stick.path)]
    }

    static func removed(_ path: String, _ state: inout PlayerState) -> [Effect] {
        var effects: [Effect] = []
        if state.stick?.path == path {
            // The routine being imported is abandoned whole; what was committed stays.
            if state.importing != nil { effects.append(.cancelImport) }
            state.stick = nil
        }
        NoticeRules.arrived(Notice(.info, ["Stick removed"], duration: 1_500_000_000), &state)
        return effects
    }

    /// A stick that cannot be read is named, long enough to be read from across the room;
    /// nothing is offered.
    static func refused(_ refusal: StickRefusal, _ state: inout PlayerState) -> [Effect] {
        NoticeRules.arrived(Notice(.problem, refusal.lines, duration: refusalDuration), &state)
        ProblemsRules.found(FileProblem(file: refusal.device, reason: refusal.message), &state)
        return []
    }

    /// A stick with no audio file in its folders: 16×2 shows the first two lines, 20×4 also
    /// what was looked for (`stick check` and the log name every format).
    static let noMusic = ["No music on", "this stick", "Looked for: MP3", "WAV FLAC M4A OGG"]

    /// How long a refused stick's notice stays.
    static let refusalDuration: Int64 = 8_000_000_000

    static func finished(_ summary: ImportSummary, _ state: inout PlayerState) -> [Effect] {
        state.importing = nil
        state.stick = nil
        NoticeRules.arrived(Notice(summary.hasProblems ? .problem : .info, summary.lines), &state)
        if let problems = ProblemsRules.summary(state) { NoticeRules.arrived(problems, &state) }
        return []
    }
}
