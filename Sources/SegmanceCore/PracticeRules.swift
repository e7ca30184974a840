/// The part's practice settings on the menu: *Lead-in* before its loop and the speed *Ramp*,
/// heard from the loop's next pass, kept with the part when the entry is left.
enum PracticeRules {
    /// A detent on *Lead-in*: the next choice ("Off" first), the loop told at once.
    static func stepLeadIn(by detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        let leadIn = MenuRules.step([nil] + LeadIn.choices.map(Optional.some), part.leadIn, detents)
        guard leadIn != part.leadIn else { return [] }
        state.routines[r].parts[state.partIndex].leadIn = leadIn
        return state.loopIsOn ? LoopRules.loopEffects(&state) : []
    }

    /// A detent on *Ramp*: the next choice ("Off" first); a loop on starts over at its first speed.
    static func stepRamp(by detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        let ramp = MenuRules.step([nil] + SpeedRamp.choices.map(Optional.some), part.ramp, detents)
        guard ramp != part.ramp else { return [] }
        state.routines[r].parts[state.partIndex].ramp = ramp
        // The ramp gone, the part's own speed again.
        let effects = ramp == nil ? SpeedVolumeRules.speedEffects(part.speed, &state) : []
        return effects + (state.loopIsOn ? LoopRules.loopEffects(&state) : [])
    }

    /// The entry left: the part's lead-in and ramp go to the library.
    static func saved(_ state: inout PlayerState) -> [Effect] {
        guard let routine = state.routine, let part = state.part else { return [] }
        return [.persist(.partPractice(routine: routine.title, part: state.partIndex, partTitle: part.title,
                                       leadIn: part.leadIn, ramp: part.ramp))]
    }
}
