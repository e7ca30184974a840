/// Parts and routines: which part of which routine sounds, the boot's restore and the
/// library's routines coming in.
enum NavigationRules {
    /// Makes part `index` of the current routine the one that sounds. The transport carries
    /// over: playing (or counting down) starts the new part with the countdown, paused stops.
    static func enterPart(_ index: Int, _ state: inout PlayerState) -> [Effect] {
        let wasRunning: Bool
        switch state.transport {
        case .playing, .countingDown: wasRunning = true
        case .paused, .stopped: wasRunning = false
        }
        var effects = loadPart(index, &state)
        state.titleShownUntil = state.now + Rules.titleDuration
        if wasRunning {
            effects += TransportRules.start(from: state.position, origin: .stopped, &state)
        }
        return effects + TransportRules.resumeEffect(state)
    }

    /// Selects a part, stopped at its start, and tells the audio side.
    static func loadPart(_ index: Int, _ state: inout PlayerState) -> [Effect] {
        guard let routine = state.routine, routine.parts.indices.contains(index) else { return [] }
        let part = routine.parts[index]
        state.partIndex = index
        state.transport = .stopped
        state.lastStart = nil
        state.moveCursor = nil
        state.loop = part.savedLoop.map(LoopMode.ab) ?? .off
        state.position = LoopRules.loopStart(state)
        let epoch = TransportRules.bumpEpoch(&state)
        return [.audio(.load(part.playable), epoch: epoch)] + SpeedVolumeRules.speedEffects(part, &state)
            + LoopRules.loopEffects(&state)
    }

    static func enterRoutine(_ index: Int, _ state: inout PlayerState) -> [Effect] {
        // Choosing a routine by hand leaves a class set.
        state.classRun = nil
        let effects = selectRoutine(index, part: 0, &state)
        return effects.isEmpty ? [] : effects + TransportRules.resumeEffect(state)
    }

    /// Makes routine `index` current at part `part`, stopped, showing its title.
    static func selectRoutine(_ index: Int, part: Int, _ state: inout PlayerState) -> [Effect] {
        guard state.routines.indices.contains(index) else { return [] }
        state.routineIndex = index
        let routine = state.routines[index]
        // A routine's own count-in is its default (`PlayerState.countdownSeconds`): choosing
        // it never writes the teacher's settings.
        NoticeRules.arrived(Notice(.info, [routine.title, routine.subtitle].filter { !$0.isEmpty },
                       duration: Rules.hintDuration), &state)
        return loadPart(routine.parts.indices.contains(part) ? part : 0, &state)
    }

    /// Boot: the library's routines and settings, and the part and position the performer
    /// left off at (recognised by title when a re-import moved it), stopped there.
    static func restore(_ snapshot: LibrarySnapshot, _ state: inout PlayerState) -> [Effect] {
        var effects: [Effect] = []
        if var settings = snapshot.settings {
            // The saved volume, at most the start maximum: the morning after a loud class.
            settings.volume = min(settings.volume, state.startVolumeMaximum)
            effects += restoreSettings(settings, &state)
        }
        state.routines = snapshot.routines
        state.classSets = snapshot.classSets
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

    /// The saved settings in force, and the audio side told of what it hears differently.
    private static func restoreSettings(_ settings: Settings, _ state: inout PlayerState) -> [Effect] {
        guard settings != state.settings else { return [] }
        let voice = state.settings.countVoice
        state.settings = settings
        var effects: [Effect] = [.audio(.setVolume(settings.volume), epoch: state.epoch)]
        if settings.countVoice != voice {
            effects.append(.audio(.setCountVoice(settings.countVoice), epoch: state.epoch))
        }
        return effects
    }

    static func routinesLoaded(_ routines: [Routine], _ state: inout PlayerState) -> [Effect] {
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
            if wasRunning { effects += TransportRules.start(from: state.position, origin: .stopped, &state) }
            return effects
        }
        guard !routines.isEmpty else {
            state.routineIndex = nil
            state.partIndex = 0
            state.position = 0
            state.loop = .off
            state.transport = .stopped
            return [.audio(.stop, epoch: TransportRules.bumpEpoch(&state))]
        }
        state.routineIndex = nil
        return [.audio(.stop, epoch: TransportRules.bumpEpoch(&state))] + enterRoutine(0, &state)
    }
}
