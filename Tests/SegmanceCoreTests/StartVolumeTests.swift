import Testing
@testable import SegmanceCore

/// The start volume (issue 29, item 7): at boot, the saved volume at most the configured maximum.
@Suite(.tags(.unit)) struct StartVolumeTests {
    /// The volume saved at the end of a loud class starts at the configured maximum (70 % unless
    /// the configuration says otherwise); a quieter one as it was saved.
    @Test(arguments: [(100, 70, 70), (90, 70, 70), (50, 70, 50), (100, 100, 100), (80, 0, 0)])
    func theStartVolumeIsTheSavedOneCapped(saved: Int, maximum: Int, starts: Int) {
        var state = PlayerState(startVolumeMaximum: maximum)
        _ = Rules.reduce(&state, .booted)
        let effects = Rules.reduce(&state, .restored(LibrarySnapshot(routines: [], settings: Settings(volume: saved))))
        #expect(state.settings.volume == starts)
        #expect(effects.contains(.audio(.setVolume(starts), epoch: 0)) == (starts != Settings().volume))
    }
}
