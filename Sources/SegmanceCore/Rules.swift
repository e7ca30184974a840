/// The rules of the appliance: `reduce(&state, event) -> [Effect]`, the one entry point. No I/O,
/// no clock. An event goes to the rules of its concern: transport, navigation, loops, beats, speed
/// and volume, notices, the menu, the stick, making on the box.
public enum Rules {
    /// PREV restarts the part instead of going back once playback is this far in.
    public static let restartThresholdSeconds: Int64 = 3
    /// An encoder detent seeks this far.
    public static let seekSecondsPerDetent: Int64 = 1
    /// B must be at least this long after A (milliseconds), so markers never cross.
    public static let minimumLoopMilliseconds: Int64 = 500
    /// How long short "you can't do that" hints stay on screen.
    public static let hintDuration: Int64 = 1_500_000_000
    /// How long "Card full: not saved" stays: long enough to be read from across the room.
    public static let saveFailedDuration: Int64 = 5_000_000_000
    /// How long the routine's title shows on the now-playing screen after a part change
    /// or the encoder's long push.
    public static let titleDuration: Int64 = 3_000_000_000
    /// How long the volume bar stays after the last detent of the volume gesture; the
    /// volume is saved when it goes.
    public static let volumeBarDuration: Int64 = 1_500_000_000
    /// While playing, the resume point is written again once this much audio has played
    /// since it was last written. A power cut then loses at most this much of the place
    /// (plus the age of the position last read, under a second), and the SD card sees one
    /// small SQLite commit per half minute of music — about 500 on a four-hour teaching day,
    /// against 14,400 at one a second — a wear nobody has to think about, while half a minute
    /// is found again with a few turns of the encoder.
    public static let resumeSaveSeconds: Int64 = 30
    /// Practice speeds: percent of the recorded tempo, in steps of `speedStep`.
    public static let speedRange = 50...150
    public static let speedStep = 5

    /// A speed on the grid of `speedRange` and `speedStep` (rounded to the nearest step).
    public static func clampSpeed(_ percent: Int) -> Int {
        let stepped = (percent + speedStep / 2).quotientAndRemainder(dividingBy: speedStep).quotient * speedStep
        return min(max(stepped, speedRange.lowerBound), speedRange.upperBound)
    }

    /// When the backlight dims if no control comes first; nil when it never does.
    public static func lightDimsAt(_ state: PlayerState) -> Int64? {
        guard state.settings.lightIdle > 0 else { return nil }
        return state.lastControl + Int64(state.settings.lightIdle) * 1_000_000_000
    }

    /// Applies one event to the state and returns what the edges must do.
    public static func reduce(_ state: inout PlayerState, _ event: Event) -> [Effect] {
        if isControl(event) { noteControl(&state) }
        let effects = handle(&state, event)
        // A heard frame belongs to the one control it came with.
        if isControl(event) { state.heard = nil }
        // Whatever wrote the resume point (a pause, a part change, the periodic write)
        // starts the count of unsaved audio again.
        if effects.contains(where: { if case .persist(.resume) = $0 { true } else { false } }) {
            state.unsavedPlay = 0
        }
        return effects
    }

    private static func isControl(_ event: Event) -> Bool {
        switch event {
        case .buttonPressed, .buttonLongPressed, .buttonDoublePressed, .encoderTurned, .encoderTurnedHolding,
             .editRequested: true
        default: false
        }
    }

    /// Any control wakes the backlight (and still does what it does).
    private static func noteControl(_ state: inout PlayerState) {
        if state.settings.lightIdle > 0 { state.lastControl = state.now }
        if !state.backlight { state.backlight = true }
        NoticeRules.controlCame(&state)
    }

    /// What happened elsewhere: the boot, the clock, the library, the stick, the audio side.
    private static func handle(_ state: inout PlayerState, _ event: Event) -> [Effect] {
        switch event {
        case .booted:
            let voice = state.settings.countVoice
            return [.audio(.setVolume(state.settings.volume), epoch: state.epoch)]
                + (voice == .ticks ? [] : [.audio(.setCountVoice(voice), epoch: state.epoch)])
        case .clock(let now):
            return clockTicked(now, &state)
        case .notice(let notice):
            NoticeRules.arrived(notice, &state)
            return []
        case .saveFailed(let diskFull):
            // Once on screen (or waiting) is enough: the edges retry until it lands.
            let notice = Notice(.problem, diskFull ? ["Card full:", "not saved"] : ["Card error:", "not saved"],
                                duration: saveFailedDuration)
            if state.notice?.notice != notice && !state.pendingNotices.contains(notice) {
                NoticeRules.arrived(notice, &state)
            }
            return []
        case .unsavedWorkSaved:
            NoticeRules.arrived(Notice(.info, ["Saved now"], duration: hintDuration), &state)
            return []
        case .problemFound(let problem):
            ProblemsRules.found(problem, &state)
            return []
        case .heard(let frame):
            // Playing, "here" is what was heard; otherwise nothing sounded, and the place
            // is the core's own (where a pause settled, a seek while paused went).
            if case .playing = state.transport, let part = state.part {
                state.heard = min(max(frame, 0), max(0, part.length - 1))
            }
            return []
        case .shuttingDown:
            return TransportRules.shutDown(&state)
        case .routinesLoaded(let routines):
            return NavigationRules.routinesLoaded(routines, &state)
        case .classSetsLoaded(let sets):
            state.classSets = sets
            if let run = state.classRun, !sets.indices.contains(run.set) { state.classRun = nil }
            return []
        case .restored(let snapshot):
            return NavigationRules.restore(snapshot, &state)
        case .stickInserted(let offer):
            return StickRules.inserted(offer, &state)
        case .stickRemoved(let path):
            return StickRules.removed(path, &state)
        case .stickRefused(let refusal):
            return StickRules.refused(refusal, &state)
        case .importRequested:
            return StickRules.startImport(&state)
        case .importProgress(let progress):
            state.importing = progress
            return []
        case .importFinished(let summary):
            return StickRules.finished(summary, &state)
        case .audio(let report):
            return AudioReportRules.apply(report, &state)
        default:
            return control(&state, event)
        }
    }

    /// The clock: what shows for a while goes, the light dims, a volume gesture ends.
    private static func clockTicked(_ now: Int64, _ state: inout PlayerState) -> [Effect] {
        state.now = now
        NoticeRules.tick(&state)
        if let until = state.loopTimesShownUntil, now >= until { state.loopTimesShownUntil = nil }
        if let until = state.titleShownUntil, now >= until { state.titleShownUntil = nil }
        if state.backlight, let dim = lightDimsAt(state), now >= dim { state.backlight = false }
        if let until = state.volumeShownUntil, now >= until {
            // Saved once the gesture is over, not at every detent.
            state.volumeShownUntil = nil
            return [.persist(.settings(state.settings))]
        }
        return []
    }

    /// A control: the stick's offer, the menu, the moves view and the gestures take it first.
    private static func control(_ state: inout PlayerState, _ event: Event) -> [Effect] {
        switch event {
        case .editRequested(let edit):
            return EditRules.apply(edit, &state)
        case .buttonPressed(.select) where state.stickOfferShown,
             .buttonDoublePressed(.select) where state.stickOfferShown:
            return StickRules.answer(long: false, &state)
        case .buttonLongPressed(.select) where state.stickOfferShown:
            return StickRules.answer(long: true, &state)
        case .buttonDoublePressed(.select):
            if state.menu != nil {
                // Two quick clicks in a menu are two selections.
                return reduce(&state, .buttonPressed(.select)) + reduce(&state, .buttonPressed(.select))
            }
            state.view = state.view == .nowPlaying ? .moves : .nowPlaying
            state.moveCursor = nil
            return []
        case .buttonPressed(.select) where state.menu == nil && state.view == .moves && state.shownMoveIndex != nil:
            return TransportRules.jumpToMove(&state)
        case .buttonLongPressed(.select) where state.menu == nil:
            if state.view == .moves {
                state.view = .nowPlaying
                state.moveCursor = nil
            } else if state.routine != nil {
                // Which routine is this? Its title, for a moment, on the now-playing screen.
                state.titleShownUntil = state.now + titleDuration
            }
            return []
        case .buttonPressed(.loop) where state.menu?.page == .tapping:
            return TapTempoRules.tap(&state)
        case .encoderTurnedHolding(.play, let detents):
            return SpeedVolumeRules.changeVolume(by: detents, &state)
        case .encoderTurnedHolding(.loop, let detents) where state.menu == nil:
            return SpeedVolumeRules.changeSpeed(by: detents, &state)
        case .encoderTurnedHolding(_, let detents):
            return control(&state, .encoderTurned(detents))
        case .buttonDoublePressed(.prev):
            return TransportRules.again(&state)
        case .buttonDoublePressed(let button):
            return reduce(&state, .buttonPressed(button))
        case .buttonPressed(.select), .buttonLongPressed(.select):
            return MenuRules.select(long: event == .buttonLongPressed(.select), &state)
        case .encoderTurned(let detents):
            if state.menu != nil { return MenuRules.turn(detents, &state) }
            if state.view == .moves, let shown = state.shownMoveIndex, let part = state.part {
                // The moves view: the encoder walks the part's moves.
                state.moveCursor = min(max(shown + detents, 0), part.moves.count - 1)
                return []
            }
            return TransportRules.seek(byDetents: detents, &state)
        case .buttonPressed(let button):
            return press(button, &state)
        case .buttonLongPressed(let button):
            return longPress(button, &state)
        default:
            return []
        }
    }

    // MARK: - Buttons

    private static func press(_ button: Button, _ state: inout PlayerState) -> [Effect] {
        guard let part = state.part else {
            NoticeRules.show(Notice(.info, ["No routines", "Insert a stick"]), in: &state)
            return []
        }
        switch button {
        case .play:
            return TransportRules.togglePlay(&state)
        case .prev where state.classRun != nil:
            return ClassRules.previous(&state)
        case .next where state.classRun != nil:
            return ClassRules.next(&state)
        case .prev:
            if TransportRules.here(state) > restartThresholdSeconds * state.sampleRate || state.partIndex == 0 {
                return TransportRules.restartPart(&state)
            }
            return NavigationRules.enterPart(state.partIndex - 1, &state)
        case .next:
            guard let routine = state.routine, state.partIndex + 1 < routine.parts.count else {
                NoticeRules.hint("Last part", &state)
                return []
            }
            return NavigationRules.enterPart(state.partIndex + 1, &state)
        case .loop:
            return LoopRules.markLoop(part, &state)
        case .select:
            return []
        }
    }

    private static func longPress(_ button: Button, _ state: inout PlayerState) -> [Effect] {
        guard state.part != nil, let routineIndex = state.routineIndex else { return [] }
        switch button {
        case .play:
            state.transport = .stopped
            state.position = LoopRules.loopStart(state)
            let stop = Effect.audio(TransportRules.stopCommand(state), epoch: TransportRules.bumpEpoch(&state))
            return [stop] + LoopRules.passesRestarted(&state) + TransportRules.resumeEffect(state)
        case .prev:
            guard routineIndex > 0 else {
                NoticeRules.hint("First routine", &state)
                return []
            }
            return NavigationRules.enterRoutine(routineIndex - 1, &state)
        case .next:
            guard routineIndex + 1 < state.routines.count else {
                NoticeRules.hint("Last routine", &state)
                return []
            }
            return NavigationRules.enterRoutine(routineIndex + 1, &state)
        case .loop:
            // The part loop and the A–B loop exclude each other.
            state.loop = state.loop == .part ? .off : .part
            return LoopRules.loopEffects(&state)
        case .select:
            return []
        }
    }
}
