/// The rules of the appliance: `reduce(&state, event) -> [Effect]`. No I/O, no clock.
public enum Player {
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

    private static func handle(_ state: inout PlayerState, _ event: Event) -> [Effect] {
        switch event {
        case .booted:
            return [.audio(.setVolume(state.settings.volume), epoch: state.epoch)]
                + (state.settings.countVoice == .ticks ? [] : [.audio(.setCountVoice(state.settings.countVoice), epoch: state.epoch)])
        case .clock(let now):
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
        case .notice(let notice):
            enqueue(notice, &state)
            return []
        case .saveFailed(let diskFull):
            // Once on screen (or waiting) is enough: the edges retry until it lands.
            let notice = Notice(.problem, diskFull ? ["Card full:", "not saved"] : ["Card error:", "not saved"],
                                duration: saveFailedDuration)
            if state.notice?.notice != notice && !state.pendingNotices.contains(notice) { enqueue(notice, &state) }
            return []
        case .unsavedWorkSaved:
            enqueue(Notice(.info, ["Saved now"], duration: hintDuration), &state)
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
            return shutDown(&state)
        case .routinesLoaded(let routines):
            return routinesLoaded(routines, &state)
        case .restored(let snapshot):
            return restore(snapshot, &state)
        case .stickInserted(let offer):
            return StickRules.inserted(offer, &state)
        case .stickRemoved(let path):
            return StickRules.removed(path, &state)
        case .stickRefused(let refusal):
            return StickRules.refused(refusal, &state)
        case .importRequested:
            return StickRules.startImport(&state)
        case .editRequested(let edit):
            return EditRules.apply(edit, &state)
        case .importProgress(let progress):
            state.importing = progress
            return []
        case .importFinished(let summary):
            return StickRules.finished(summary, &state)
        case .audio(let report):
            return audio(report, &state)
        case .buttonPressed(.select) where state.stickOfferShown, .buttonDoublePressed(.select) where state.stickOfferShown:
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
            return jumpToMove(&state)
        case .buttonLongPressed(.select) where state.menu == nil:
            if state.view == .moves {
                state.view = .nowPlaying
                state.moveCursor = nil
            } else if state.routine != nil {
                // Which routine is this? Its title, for a moment, on the now-playing screen.
                state.titleShownUntil = state.now + titleDuration
            }
            return []
        case .encoderTurnedHolding(.play, let detents):
            return changeVolume(by: detents, &state)
        case .encoderTurnedHolding(.loop, let detents) where state.menu == nil:
            return changeSpeed(by: detents, &state)
        case .encoderTurnedHolding(_, let detents):
            return handle(&state, .encoderTurned(detents))
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
            return seek(byDetents: detents, &state)
        case .buttonPressed(let button):
            return press(button, &state)
        case .buttonLongPressed(let button):
            return longPress(button, &state)
        }
    }

    // MARK: - Buttons

    private static func press(_ button: Button, _ state: inout PlayerState) -> [Effect] {
        guard let part = state.part else {
            show(Notice(.info, ["No routines", "Insert a stick"]), in: &state)
            return []
        }
        switch button {
        case .play:
            return togglePlay(&state)
        case .prev:
            if here(state) > restartThresholdSeconds * state.sampleRate || state.partIndex == 0 {
                return restartPart(&state)
            }
            return enterPart(state.partIndex - 1, &state)
        case .next:
            guard let routine = state.routine, state.partIndex + 1 < routine.parts.count else {
                hint("Last part", &state)
                return []
            }
            return enterPart(state.partIndex + 1, &state)
        case .loop:
            return markLoop(part, &state)
        case .select:
            return []
        }
    }

    private static func longPress(_ button: Button, _ state: inout PlayerState) -> [Effect] {
        guard state.part != nil, let routineIndex = state.routineIndex else { return [] }
        switch button {
        case .play:
            state.transport = .stopped
            state.position = loopStart(state)
            state.loopPass = 1
            return [.audio(.stop, epoch: bumpEpoch(&state))] + resumeEffect(state)
        case .prev:
            guard routineIndex > 0 else {
                hint("First routine", &state)
                return []
            }
            return enterRoutine(routineIndex - 1, &state)
        case .next:
            guard routineIndex + 1 < state.routines.count else {
                hint("Last routine", &state)
                return []
            }
            return enterRoutine(routineIndex + 1, &state)
        case .loop:
            // The part loop and the A–B loop exclude each other.
            state.loop = state.loop == .part ? .off : .part
            return loopEffects(&state)
        case .select:
            return []
        }
    }

    // MARK: - Transport

    private static func togglePlay(_ state: inout PlayerState) -> [Effect] {
        switch state.transport {
        case .stopped, .paused:
            let origin: Countdown.Origin = state.transport == .paused ? .paused : .stopped
            return start(from: state.position, origin: origin, &state)
        case .countingDown(let countdown):
            // PLAY during a countdown cancels it: there is only ever one.
            state.transport = countdown.origin == .stopped ? .stopped : .paused
            state.loopPass = 1
            return [.audio(.stop, epoch: bumpEpoch(&state))]
        case .playing:
            state.transport = .paused
            return [.audio(.pause, epoch: bumpEpoch(&state))] + resumeEffect(state)
        }
    }

    /// Playing: paused, as PLAY would. Counting down: the countdown is cancelled as PLAY
    /// would, back to where it began. The place is kept either way.
    private static func shutDown(_ state: inout PlayerState) -> [Effect] {
        if state.volumeShownUntil != nil {
            // A volume gesture still under way is kept too.
            state.volumeShownUntil = nil
            return [.persist(.settings(state.settings))] + shutDown(&state)
        }
        switch state.transport {
        case .playing, .countingDown:
            let effects = togglePlay(&state)
            return effects.contains { if case .persist = $0 { true } else { false } } ? effects : effects + resumeEffect(state)
        case .stopped, .paused:
            return resumeEffect(state)
        }
    }

    /// Starts playback at `position`, through the countdown when one is set.
    private static func start(from position: FramePosition, origin: Countdown.Origin,
                              _ state: inout PlayerState) -> [Effect] {
        state.position = position
        if let countIn = countIn(to: position, state) {
            state.transport = .countingDown(Countdown(remaining: countIn.beats, origin: origin,
                                                      firstCount: countIn.firstCount, total: countIn.beats))
            return [.audio(.countIn(from: position, countIn), epoch: bumpEpoch(&state))]
        }
        let seconds = state.countInCount
        state.transport = seconds > 0
            ? .countingDown(Countdown(remaining: seconds, origin: origin)) : .playing
        return [.audio(.play(from: position, countdown: seconds), epoch: bumpEpoch(&state))]
    }

    /// Back to the start of the part (A inside an A–B loop); a jump while playing counts in again.
    private static func restartPart(_ state: inout PlayerState) -> [Effect] {
        let target = loopStart(state)
        switch state.transport {
        case .playing, .countingDown:
            return start(from: target, origin: .playing, &state)
        case .paused, .stopped:
            state.position = target
            return []
        }
    }

    // MARK: - Parts and routines

    /// Makes part `index` of the current routine the one that sounds. The transport carries
    /// over: playing (or counting down) starts the new part with the countdown, paused stops.
    static func enterPart(_ index: Int, _ state: inout PlayerState) -> [Effect] {
        let wasRunning: Bool
        switch state.transport {
        case .playing, .countingDown: wasRunning = true
        case .paused, .stopped: wasRunning = false
        }
        var effects = loadPart(index, &state)
        state.titleShownUntil = state.now + titleDuration
        if wasRunning {
            effects += start(from: state.position, origin: .stopped, &state)
        }
        return effects + resumeEffect(state)
    }

    /// Selects a part, stopped at its start, and tells the audio side.
    static func loadPart(_ index: Int, _ state: inout PlayerState) -> [Effect] {
        guard let routine = state.routine, routine.parts.indices.contains(index) else { return [] }
        let part = routine.parts[index]
        state.partIndex = index
        state.transport = .stopped
        state.moveCursor = nil
        state.loop = part.savedLoop.map(LoopMode.ab) ?? .off
        state.position = loopStart(state)
        let epoch = bumpEpoch(&state)
        return [.audio(.load(part.playable), epoch: epoch)] + speedEffects(part, &state) + loopEffects(&state)
    }

    static func enterRoutine(_ index: Int, _ state: inout PlayerState) -> [Effect] {
        let effects = selectRoutine(index, part: 0, &state)
        return effects.isEmpty ? [] : effects + resumeEffect(state)
    }

    /// Makes routine `index` current at part `part`, stopped, showing its title.
    private static func selectRoutine(_ index: Int, part: Int, _ state: inout PlayerState) -> [Effect] {
        guard state.routines.indices.contains(index) else { return [] }
        state.routineIndex = index
        let routine = state.routines[index]
        // A routine's own count-in is its default (`PlayerState.countdownSeconds`): choosing
        // it never writes the teacher's settings.
        enqueue(Notice(.info, [routine.title, routine.subtitle].filter { !$0.isEmpty },
                       duration: hintDuration), &state)
        return loadPart(routine.parts.indices.contains(part) ? part : 0, &state)
    }

    /// Boot: the library's routines and settings, and the part and position the performer
    /// left off at (recognised by title when a re-import moved it), stopped there.
    private static func restore(_ snapshot: LibrarySnapshot, _ state: inout PlayerState) -> [Effect] {
        var effects: [Effect] = []
        if let settings = snapshot.settings, settings != state.settings {
            let voice = state.settings.countVoice
            state.settings = settings
            effects.append(.audio(.setVolume(settings.volume), epoch: state.epoch))
            if settings.countVoice != voice { effects.append(.audio(.setCountVoice(settings.countVoice), epoch: state.epoch)) }
        }
        state.routines = snapshot.routines
        state.routineIndex = nil
        guard !snapshot.routines.isEmpty else { return effects }
        guard let resume = snapshot.resume,
              let r = snapshot.routines.firstIndex(where: { $0.title == resume.routine }) else {
            return effects + selectRoutine(0, part: 0, &state)
        }
        let parts = snapshot.routines[r].parts
        let found = parts.indices.contains(resume.part) && parts[resume.part].title == resume.partTitle
            ? resume.part : parts.firstIndex { $0.title == resume.partTitle }
        effects += selectRoutine(r, part: found ?? 0, &state)
        guard let found, let part = state.part, found == state.partIndex,
              (0..<part.length).contains(resume.position) else {
            return effects
        }
        if case .ab(let loop) = state.loop, !(loop.a..<loop.b).contains(resume.position) { return effects }
        state.position = resume.position
        return effects
    }

    /// Where playback is now, for the library.
    static func resumeEffect(_ state: PlayerState) -> [Effect] {
        guard let routine = state.routine, let part = state.part else { return [] }
        return [.persist(.resume(ResumePoint(routine: routine.title, part: state.partIndex,
                                             partTitle: part.title, position: state.position)))]
    }

    private static func routinesLoaded(_ routines: [Routine], _ state: inout PlayerState) -> [Effect] {
        let current = state.routine
        state.routines = routines
        if let current, let same = routines.firstIndex(where: { $0.title == current.title }) {
            state.routineIndex = same
            let part = current.parts.indices.contains(state.partIndex) ? current.parts[state.partIndex] : nil
            if let part, state.part == part {
                return [] // what is sounding is still there, unchanged
            }
            let wasRunning = state.transport == .playing
            var effects = loadPart(min(state.partIndex, max(0, routines[same].parts.count - 1)), &state)
            if wasRunning { effects += start(from: state.position, origin: .stopped, &state) }
            return effects
        }
        guard !routines.isEmpty else {
            state.routineIndex = nil
            state.partIndex = 0
            state.position = 0
            state.loop = .off
            state.transport = .stopped
            return [.audio(.stop, epoch: bumpEpoch(&state))]
        }
        state.routineIndex = nil
        return [.audio(.stop, epoch: bumpEpoch(&state))] + enterRoutine(0, &state)
    }

    // MARK: - Loops

    /// Where a control that acts "here" acts: the frame heard at its instant, else the
    /// position last known.
    static func here(_ state: PlayerState) -> FramePosition { state.heard ?? state.position }

    private static func markLoop(_ part: Part, _ state: inout PlayerState) -> [Effect] {
        defer { LoopTimeRules.marked(&state) }
        let here = here(state)
        switch state.loop {
        case .off, .part:
            let wasPart = state.loop == .part
            state.loop = .markedA(snapped(here, state))
            return wasPart ? loopEffects(&state) : []
        case .markedA(let a):
            let minimum = minimumLoopMilliseconds * state.sampleRate / 1000
            let b = snapped(here, state)
            guard b >= a + minimum else {
                hint(b < a ? "B must follow A" : "Loop too short", &state)
                return []
            }
            let loop = ABLoop(a: a, b: min(b, part.length))
            state.loop = .ab(loop)
            return loopEffects(&state) + setSavedLoop(loop, &state)
        case .ab:
            state.loop = .off
            return loopEffects(&state) + setSavedLoop(nil, &state)
        }
    }

    /// An A–B loop set on the device is remembered with the part, and in the library.
    static func setSavedLoop(_ loop: ABLoop?, _ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        state.routines[r].parts[state.partIndex].savedLoop = loop
        return [.persist(.savedLoop(routine: state.routines[r].title, part: state.partIndex,
                                    partTitle: part.title, loop: loop))]
    }

    /// *Stick loop* in the menu: the loop the stick gave the part is in force again and
    /// armed; what the box set for the part's loop (a clear, another loop) is forgotten.
    static func bringBackStickLoop(_ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        guard let stick = part.stickLoop else {
            hint("No stick loop", &state)
            return []
        }
        state.routines[r].parts[state.partIndex].savedLoop = stick
        return armLoop(stick, &state) + [.persist(.stickLoopBack(routine: state.routines[r].title, part: state.partIndex,
                                                                 partTitle: part.title))]
    }

    /// `loop` is the A–B loop on; from outside it, to its start, as entering the part goes
    /// (a jump while playing counts in again).
    static func armLoop(_ loop: ABLoop, _ state: inout PlayerState) -> [Effect] {
        state.loop = .ab(loop)
        var effects = loopEffects(&state)
        if !(loop.a..<loop.b).contains(here(state)) {
            switch state.transport {
            case .playing, .countingDown: effects += start(from: loop.a, origin: .playing, &state)
            case .paused, .stopped: state.position = loop.a
            }
        }
        return effects
    }

    /// The loop region and the follow-on part that the audio side needs for the current state.
    static func loopEffects(_ state: inout PlayerState) -> [Effect] {
        guard let part = state.part else { return [] }
        let repeatCountdown = state.settings.countdownBeforeRepeat ? state.countInCount : 0
        let pause = loopPauseFrames(state)
        let passes = state.settings.loopPasses
        let region: LoopRegion?
        switch state.loop {
        case .part: region = LoopRegion(range: 0..<part.length, countdownBeforeRepeat: repeatCountdown,
                                        pauseBeforeRepeat: pause, passes: passes,
                                        countInBeforeRepeat: repeatCountIn(from: 0, state))
        case .ab(let l): region = LoopRegion(range: l.a..<l.b, countdownBeforeRepeat: repeatCountdown,
                                             pauseBeforeRepeat: pause, passes: passes,
                                             countInBeforeRepeat: repeatCountIn(from: l.a, state))
        case .off, .markedA: region = nil
        }
        // The audio side counts passes from 1 whenever it is given a loop.
        state.loopPass = 1
        var next: PartAudio?
        if region == nil, state.settings.atPartEnd == .next, let routine = state.routine,
           state.partIndex + 1 < routine.parts.count {
            next = routine.parts[state.partIndex + 1].playable
        }
        return [.audio(.setLoop(region), epoch: state.epoch), .audio(.setNext(next), epoch: state.epoch)]
    }

    /// Where "back to the start" goes: A inside an A–B loop, else the part's first frame.
    static func loopStart(_ state: PlayerState) -> FramePosition {
        if case .ab(let loop) = state.loop { return loop.a }
        return 0
    }

    // MARK: - Seeking

    private static func seek(byDetents detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard let part = state.part, detents != 0 else { return [] }
        var low: FramePosition = 0
        var high = max(0, part.length - 1)
        if case .ab(let loop) = state.loop {
            // Seeking cannot leave an active A–B region.
            low = loop.a
            high = loop.b - 1
        }
        // Relative to what was heard at the detent.
        let from = here(state)
        let target: FramePosition
        if let grid = part.grid, state.settings.turnBy != .seconds {
            // By beats or eights: to the beat (or "1") that many away from the nearest.
            let every: Int64 = state.settings.turnBy == .eights ? BeatGrid.beatsPerEight : 1
            let beat = grid.nearestBeat(to: from, every: every) + Int64(detents) * every
            target = min(max(grid.frame(ofBeat: beat), low), high)
        } else {
            let step = Int64(detents) * seekSecondsPerDetent * state.sampleRate
            target = min(max(from + step, low), high)
        }
        guard target != from else { return [] }
        state.position = target
        switch state.transport {
        case .playing, .countingDown:
            return [.audio(.seek(to: target), epoch: bumpEpoch(&state))]
        case .paused, .stopped:
            return []
        }
    }

    // MARK: - Audio reports

    private static func audio(_ report: AudioReport, _ state: inout PlayerState) -> [Effect] {
        // Reports sent before our last timeline command took effect describe a past state.
        guard report.epoch == state.epoch else { return [] }
        switch report.kind {
        case .countdownTick(let remaining):
            let origin: Countdown.Origin
            var counting: Countdown?
            switch state.transport {
            case .countingDown(let c):
                origin = c.origin
                counting = c
            case .playing: origin = .playing // the countdown before a repeat
            case .paused: origin = .paused
            case .stopped: origin = .stopped
            }
            // A count before a repeat begins here: in beats when the loop counts beats.
            let beats = counting == nil && state.settings.countdownBeforeRepeat
                ? repeatCountIn(from: loopStart(state), state) : nil
            let firstCount = counting?.firstCount ?? beats?.firstCount
            state.transport = .countingDown(Countdown(
                remaining: remaining + 1, origin: origin, firstCount: firstCount,
                total: firstCount == nil ? nil : counting?.total ?? beats?.beats))
            return []
        case .started(let at):
            state.transport = .playing
            state.position = at
            return []
        case .position(let position):
            if case .playing = state.transport, position > state.position {
                state.unsavedPlay += position - state.position
            }
            state.position = position
            // A power cut loses at most this much of the place (see `resumeSaveSeconds`).
            return state.unsavedPlay >= resumeSaveSeconds * state.sampleRate ? resumeEffect(state) : []
        case .looped:
            state.position = loopStart(state)
            state.loopPass += 1
            return []
        case .loopFinished:
            // The last pass ended: stopped at the loop's start, ready to go again.
            state.transport = .stopped
            state.position = loopStart(state)
            state.loopPass = 1
            return resumeEffect(state)
        case .partEnded:
            // The symbol follows the real state: audio ended by itself, so we are stopped.
            state.transport = .stopped
            state.position = loopStart(state)
            return resumeEffect(state)
        case .advanced:
            guard let routine = state.routine, state.partIndex + 1 < routine.parts.count else { return [] }
            state.partIndex += 1
            let part = routine.parts[state.partIndex]
            state.loop = part.savedLoop.map(LoopMode.ab) ?? .off
            state.position = 0
            state.moveCursor = nil
            state.titleShownUntil = state.now + titleDuration
            return speedEffects(part, &state) + loopEffects(&state) + resumeEffect(state)
        }
    }

    // MARK: - Speed, volume, moves, light

    /// The part's own speed for the audio side, when it is not the one in force.
    private static func speedEffects(_ part: Part, _ state: inout PlayerState) -> [Effect] {
        guard part.speed != state.speedPercent else { return [] }
        state.speedPercent = part.speed
        return [.audio(.setSpeed(part.speed), epoch: state.epoch)]
    }

    /// LOOP held and the encoder turned: the part's speed, a step a detent, kept with the part.
    private static func changeSpeed(by detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        let speed = clampSpeed(state.speedPercent + detents * speedStep)
        guard speed != state.speedPercent else { return [] }
        state.speedPercent = speed
        state.routines[r].parts[state.partIndex].speed = speed
        return [.audio(.setSpeed(speed), epoch: state.epoch),
                .persist(.partSpeed(routine: state.routines[r].title, part: state.partIndex,
                                    partTitle: part.title, speed: speed))]
    }

    /// PLAY held and the encoder turned: the volume, shown as a bar while it changes.
    private static func changeVolume(by detents: Int, _ state: inout PlayerState) -> [Effect] {
        state.volumeShownUntil = state.now + volumeBarDuration
        let volume = min(max(state.settings.volume + detents * Settings.volumeStep, 0), 100)
        guard volume != state.settings.volume else { return [] }
        state.settings.volume = volume
        return [.audio(.setVolume(volume), epoch: state.epoch)]
    }

    /// The encoder push on a move in the moves view: play from its cue, through the
    /// count-in when one is set (as any jump while playing). Seeking cannot leave an active
    /// A–B region, so a cue outside it is refused with a hint.
    private static func jumpToMove(_ state: inout PlayerState) -> [Effect] {
        guard let part = state.part, let index = state.shownMoveIndex else { return [] }
        guard let cue = part.moves[index].cue, cue < part.length else {
            hint("No cue", &state)
            return []
        }
        if case .ab(let loop) = state.loop, !(loop.a..<loop.b).contains(cue) {
            hint("Cue outside loop", &state)
            return []
        }
        state.moveCursor = nil
        let origin: Countdown.Origin
        switch state.transport {
        case .playing, .countingDown: origin = .playing
        case .paused: origin = .paused
        case .stopped: origin = .stopped
        }
        return start(from: cue, origin: origin, &state)
    }

    // MARK: - Beats

    /// The count-in in beats for a start at `position`: nil when the count-in is in seconds
    /// (or none), or the part has no beat grid. The music's next beat (the "1" when the
    /// start is on one) falls one beat after the last count.
    static func countIn(to position: FramePosition, _ state: PlayerState) -> CountIn? {
        let beats = state.countdownBeats
        guard beats > 0, let grid = state.part?.grid else { return nil }
        let target = grid.beat(atOrAfter: position, sampleRate: state.sampleRate)
        let lead = max(0, grid.frame(ofBeat: target) - position)
        return CountIn(beats: beats, beatFrames: outputFrames(grid.beatFrames, state),
                       lead: FramePosition(outputFrames(Double(lead), state).rounded()),
                       firstCount: grid.count(ofBeat: target - Int64(beats)))
    }

    /// The count-in before each repeat of a loop from `start`, when *Count again* is on.
    static func repeatCountIn(from start: FramePosition, _ state: PlayerState) -> CountIn? {
        state.settings.countdownBeforeRepeat ? countIn(to: start, state) : nil
    }

    /// `source` frames of the part as output frames at the speed playing: source × 100 /
    /// speed percent. The count-in's beat and lead are scaled here, and only here.
    static func outputFrames(_ source: Double, _ state: PlayerState) -> Double {
        source * 100 / Double(speedPercent(state))
    }

    /// The playback speed in percent (100 = as recorded): the part's speed as set.
    static func speedPercent(_ state: PlayerState) -> Int { max(1, state.speedPercent) }

    /// Where a loop mark at `position` goes: the nearest beat or "1" (per `loopSnap`) on a
    /// part with a beat grid, inside the part; `position` itself otherwise.
    static func snapped(_ position: FramePosition, _ state: PlayerState) -> FramePosition {
        guard let part = state.part, let grid = part.grid, state.settings.loopSnap != .off else { return position }
        let every: Int64 = state.settings.loopSnap == .eight ? BeatGrid.beatsPerEight : 1
        var beat = grid.nearestBeat(to: position, every: every)
        if grid.frame(ofBeat: beat) < 0 { beat += every }
        if grid.frame(ofBeat: beat) > part.length { beat -= every }
        let frame = grid.frame(ofBeat: beat)
        return (0...part.length).contains(frame) ? frame : position
    }

    /// "One here": the beat nearest where the music is becomes a "1" of the part, kept in
    /// the library. A part with no beat grid says so.
    static func setOne(_ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part, let grid = part.grid else {
            hint("No beat grid", &state)
            return []
        }
        let moved = grid.withOne(atBeat: grid.nearestBeat(to: state.position))
        state.routines[r].parts[state.partIndex].grid = moved
        let effects: [Effect] = [.persist(.grid(routine: state.routines[r].title, part: state.partIndex,
                                                partTitle: part.title, grid: moved))]
        // A count before each repeat counts to the new "1".
        return state.loopIsOn && state.settings.countdownBeforeRepeat ? loopEffects(&state) + effects : effects
    }

    /// The loop pause in frames. Parts have no beat grid yet; when they do, a pause in beats
    /// converts here with the part's tempo, and the audio side keeps counting in frames.
    static func loopPauseFrames(_ state: PlayerState) -> FramePosition {
        FramePosition(state.settings.loopPause) * state.sampleRate
    }

    /// When the backlight dims if no control comes first; nil when it never does.
    public static func lightDimsAt(_ state: PlayerState) -> Int64? {
        guard state.settings.lightIdle > 0 else { return nil }
        return state.lastControl + Int64(state.settings.lightIdle) * 1_000_000_000
    }

    // MARK: - Helpers

    static func bumpEpoch(_ state: inout PlayerState) -> UInt32 {
        state.epoch &+= 1
        return state.epoch
    }

    static func show(_ notice: Notice, in state: inout PlayerState) {
        state.notice = ShownNotice(notice: notice, until: state.now + notice.duration)
    }

    /// Every notice gets its turn on the screen (see `NoticeRules`).
    static func enqueue(_ notice: Notice, _ state: inout PlayerState) {
        NoticeRules.arrived(notice, &state)
    }

    static func hint(_ text: String, _ state: inout PlayerState) {
        show(Notice(.info, [text], duration: hintDuration), in: &state)
    }
}
