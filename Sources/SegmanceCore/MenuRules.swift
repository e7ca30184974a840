/// The menu's rules: encoder push opens and selects, long push goes back, turning moves.
enum MenuRules {
    static func select(long: Bool, _ state: inout PlayerState) -> [Effect] {
        guard var menu = state.menu else {
            // Problems not read yet: the menu opens on them.
            let problems = Menu.Item.allCases.firstIndex(of: .problems)!
            if !long { state.menu = Menu(cursor: state.problemsUnread ? problems : 0) }
            return []
        }
        switch menu.page {
        case .main:
            if long {
                state.menu = nil
                return []
            }
            let item = Menu.Item.allCases[menu.cursor]
            if item == .oneHere {
                // An action, not a value: the menu closes on it.
                state.menu = nil
                return BeatRules.setOne(&state)
            }
            if item == .stickLoop {
                state.menu = nil
                return LoopRules.bringBackStickLoop(&state)
            }
            if item == .saveToStick {
                state.menu = nil
                return [.saveToStick]
            }
            if item == .problems { return ProblemsRules.open(&state) }
            if item == .tapTempo { return TapTempoRules.open(&state) }
            if item == .classSet { return ClassRules.openList(&state) }
            if item == .newClass {
                state.menu = nil
                return ClassRules.newClass(&state)
            }
            if let making = EditMenu.open(item, &state) { return making }
            if item == .abLoop { return LoopTimeRules.open(&state) }
            menu = item == .routines
                ? Menu(page: .routines, cursor: state.routineIndex ?? 0)
                : Menu(page: .editing(item), cursor: 0)
            state.menu = menu
            return []
        case .routines:
            if long || state.routines.isEmpty {
                state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .routines)!)
                return []
            }
            state.menu = nil
            // Loading the routine's first part silences whatever was sounding.
            return NavigationRules.enterRoutine(menu.cursor, &state)
        case .editing(let item):
            state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: item)!)
            if item == .leadIn || item == .ramp { return PracticeRules.saved(&state) }
            // Saved once, when the value is left, not at every detent.
            var effects: [Effect] = [.persist(.settings(state.settings))]
            if item == .countdown, let routine = state.routine, routine.countdown != nil {
                effects.append(.persist(.countdownChoice(routine: routine.title, choice: routine.countdownChoice)))
            }
            return effects
        case .problems:
            ProblemsRules.leave(&state)
            return []
        case .loopEnds(let end):
            return LoopTimeRules.select(end, long: long, &state)
        case .choosing(.classSet):
            return ClassRules.choose(long: long, &state)
        case .choosing(let item):
            return EditMenu.choose(item, long: long, &state)
        case .tapping:
            return long ? TapTempoRules.leave(&state) : TapTempoRules.tap(&state)
        }
    }

    static func turn(_ detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard var menu = state.menu, detents != 0 else { return [] }
        switch menu.page {
        case .main:
            menu.cursor = clamp(menu.cursor + detents, 0, Menu.Item.allCases.count - 1)
            state.menu = menu
            return []
        case .routines:
            menu.cursor = clamp(menu.cursor + detents, 0, max(0, state.routines.count - 1))
            state.menu = menu
            return []
        case .editing(let item):
            return edit(item, by: detents, &state)
        case .problems:
            ProblemsRules.turn(detents, &state)
            return []
        case .loopEnds(let end):
            return LoopTimeRules.nudge(end, by: detents, &state)
        case .choosing(let item):
            menu.cursor = clamp(menu.cursor + detents, 0, max(0, Menu.rows(item, state).count - 1))
            state.menu = menu
            return []
        case .tapping:
            return []
        }
    }

    private static func edit(_ item: Menu.Item, by detents: Int, _ state: inout PlayerState) -> [Effect] {
        let up = detents > 0
        switch item {
        case .routines:
            return []
        case .countdown:
            return editCountdown(by: detents, &state)
        case .countdownBeforeRepeat:
            state.settings.countdownBeforeRepeat = up
            return LoopRules.loopEffects(&state)
        case .atPartEnd:
            state.settings.atPartEnd = up ? .next : .stop
            return LoopRules.loopEffects(&state)
        case .volume:
            let volume = clamp(state.settings.volume + detents * Settings.volumeStep, 0, 100)
            guard volume != state.settings.volume else { return [] }
            state.settings.volume = volume
            return [.audio(.setVolume(volume), epoch: state.epoch)]
        case .autoImport:
            state.settings.autoImport = up
            return []
        case .loopPause:
            state.settings.loopPause = step(Settings.loopPauseChoices, state.settings.loopPause, detents)
            return LoopRules.loopEffects(&state)
        case .loopPasses:
            state.settings.loopPasses = step(Settings.loopPassesChoices, state.settings.loopPasses, detents)
            return LoopRules.loopEffects(&state)
        case .lightIdle:
            state.settings.lightIdle = step(Settings.lightIdleChoices, state.settings.lightIdle, detents)
            // The idle time counts from this setting, the last control.
            state.lastControl = state.now
            return []
        case .loopSnap:
            state.settings.loopSnap = step(LoopSnap.allCases, state.settings.loopSnap, detents)
            return []
        case .turnBy:
            state.settings.turnBy = step(TurnUnit.allCases, state.settings.turnBy, detents)
            return []
        case .oneHere, .stickLoop, .abLoop, .problems, .parts, .split, .join, .namePart, .deletePart, .loops,
             .nameLoop, .addMove, .deleteMove, .newRoutine, .saveToStick, .tapTempo, .classSet, .newClass:
            return []
        case .stopFade:
            state.settings.stopFade = step(Settings.stopFadeChoices, state.settings.stopFade, detents)
            return []
        case .leadIn:
            return PracticeRules.stepLeadIn(by: detents, &state)
        case .ramp:
            return PracticeRules.stepRamp(by: detents, &state)
        case .countVoice:
            let voice = step(CountVoice.allCases, state.settings.countVoice, detents)
            guard voice != state.settings.countVoice else { return [] }
            state.settings.countVoice = voice
            return [.audio(.setCountVoice(voice), epoch: state.epoch)]
        }
    }

    /// The count-ins offered, in order: the routine's own first when its stick gives one
    /// ("stick" on the screen), then the teacher's: off, the seconds, the count-ins in beats.
    /// Any of the teacher's is theirs for every routine; on a routine with its own it says
    /// "mine" and the routine keeps that choice.
    private static func editCountdown(by detents: Int, _ state: inout PlayerState) -> [Effect] {
        let seconds = Settings.countdownChoices, beats = Settings.countInBeatChoices
        let hasOwn = state.routine?.countdown != nil
        let first = hasOwn ? 1 : 0
        let i: Int
        if state.routine?.usesOwnCountdown == true {
            i = 0
        } else if state.settings.countdownBeats > 0 {
            i = first + seconds.count + (beats.firstIndex(of: state.settings.countdownBeats) ?? 0)
        } else {
            i = first + (seconds.firstIndex(of: state.settings.countdown) ?? 0)
        }
        let j = clamp(i + detents, 0, first + seconds.count + beats.count - 1)
        if let r = state.routineIndex, hasOwn {
            state.routines[r].countdownChoice = j == 0 ? .routine : .mine
        }
        if j >= first {
            let k = j - first
            if k < seconds.count {
                state.settings.countdown = seconds[k]
                state.settings.countdownBeats = 0
            } else {
                state.settings.countdownBeats = beats[k - seconds.count]
            }
        }
        return LoopRules.loopEffects(&state)
    }

    private static func clamp(_ v: Int, _ lo: Int, _ hi: Int) -> Int { min(max(v, lo), hi) }

    /// The choice `detents` away from `value` (from the first when `value` is not one).
    static func step<T: Equatable>(_ choices: [T], _ value: T, _ detents: Int) -> T {
        let i = choices.firstIndex(of: value) ?? 0
        return choices[clamp(i + detents, 0, choices.count - 1)]
    }
}
