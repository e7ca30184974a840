import Testing
@testable import SegmanceCore

/// The count voice: ticks or spoken counts, chosen in the menu, saved, restored at boot,
/// and told to the audio side (which makes the spoken sounds ready, or falls back to ticks).
@Suite(.tags(.unit)) struct CountVoiceTests {
    typealias F = Fixture

    static let item = Menu.Item.allCases.firstIndex(of: .countVoice)!

    @Test func theMenuChangesTheVoiceTellsTheAudioSideAndSavesItOnLeaving() {
        var store = TestStore(F.loaded())
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .main, cursor: 0) }
        store.send(.encoderTurned(Self.item)) { $0.menu?.cursor = Self.item }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .editing(.countVoice), cursor: 0) }
        let e = store.state.epoch
        store.send(.encoderTurned(1), [.audio(.setCountVoice(.spoken), epoch: e)]) { $0.settings.countVoice = .spoken }
        // At the end of the choices: nothing changes, nothing is sent.
        store.send(.encoderTurned(3))
        store.send(.buttonPressed(.select), [.persist(.settings(Settings(countVoice: .spoken)))]) {
            $0.menu = Menu(page: .main, cursor: Self.item)
        }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .editing(.countVoice), cursor: 0) }
        store.send(.encoderTurned(-1), [.audio(.setCountVoice(.ticks), epoch: e)]) { $0.settings.countVoice = .ticks }
        store.send(.encoderTurned(-1))
    }

    @Test func bootTellsTheAudioSideOfSpokenCountsOnlyWhenTheyAreSet() {
        var ticks = PlayerState()
        #expect(Rules.reduce(&ticks, .booted) == [.audio(.setVolume(80), epoch: 0)])
        var spoken = PlayerState(settings: Settings(countVoice: .spoken))
        #expect(Rules.reduce(&spoken, .booted)
                == [.audio(.setVolume(80), epoch: 0), .audio(.setCountVoice(.spoken), epoch: 0)])
    }

    @Test func restoredSettingsWithAnotherVoiceTellTheAudioSide() {
        var state = PlayerState()
        _ = Rules.reduce(&state, .booted)
        var store = TestStore(state)
        let saved = Settings(volume: 60, countVoice: .spoken)
        store.send(.restored(LibrarySnapshot(routines: [], settings: saved)),
                   [.audio(.setVolume(60), epoch: 0), .audio(.setCountVoice(.spoken), epoch: 0)]) {
            $0.settings = saved
        }
        // The same voice again: only the volume.
        let louder = Settings(volume: 70, countVoice: .spoken)
        store.send(.restored(LibrarySnapshot(routines: [], settings: louder)), [.audio(.setVolume(70), epoch: 0)]) {
            $0.settings = louder
        }
    }

    @Test func aCountInIsTheSameCommandWhateverTheVoice() {
        // The voice is the audio side's: the count-in's timing and the screen's counts do
        // not depend on it.
        for voice in CountVoice.allCases {
            var state = F.loaded(Settings(countdown: 3, countVoice: voice))
            let e = state.epoch + 1
            let effects = Rules.reduce(&state, .buttonPressed(.play))
            #expect(effects == [.audio(.play(from: 0, countdown: 3), epoch: e)])
            #expect(state.transport == .countingDown(Countdown(remaining: 3, origin: .stopped)))
        }
    }
}
