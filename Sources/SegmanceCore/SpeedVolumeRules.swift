/// The practice speed of a part (LOOP held and turned) and the volume (PLAY held and turned).
enum SpeedVolumeRules {
    /// The part's own speed for the audio side, when it is not the one in force.
    static func speedEffects(_ part: Part, _ state: inout PlayerState) -> [Effect] {
        speedEffects(part.speed, &state)
    }

    /// `speed` in force, for the audio side when it is not already (a ramp's pass, the part's own).
    static func speedEffects(_ speed: Int, _ state: inout PlayerState) -> [Effect] {
        guard speed != state.speedPercent else { return [] }
        state.speedPercent = speed
        return [.audio(.setSpeed(speed), epoch: state.epoch)]
    }

    /// LOOP held and the encoder turned: the part's speed, a step a detent, kept with the part.
    static func changeSpeed(by detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        let speed = Rules.clampSpeed(state.speedPercent + detents * Rules.speedStep)
        guard speed != state.speedPercent else { return [] }
        state.speedPercent = speed
        state.routines[r].parts[state.partIndex].speed = speed
        return [.audio(.setSpeed(speed), epoch: state.epoch),
                .persist(.partSpeed(routine: state.routines[r].title, part: state.partIndex,
                                    partTitle: part.title, speed: speed))]
    }

    /// PLAY held and the encoder turned: the volume, shown as a bar while it changes.
    static func changeVolume(by detents: Int, _ state: inout PlayerState) -> [Effect] {
        state.volumeShownUntil = state.now + Rules.volumeBarDuration
        let volume = min(max(state.settings.volume + detents * Settings.volumeStep, 0), 100)
        guard volume != state.settings.volume else { return [] }
        state.settings.volume = volume
        return [.audio(.setVolume(volume), epoch: state.epoch)]
    }
}
