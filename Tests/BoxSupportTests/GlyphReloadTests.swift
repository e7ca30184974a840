import BoxSupport
import SegmanceScreen
import Testing

/// The LCD between a frame drawn with the symbols and one drawn with the big digits: the
/// driver loads CGRAM first, so for a moment the old frame's glyph cells show the new
/// set's shapes. Such a screen is a redraw; a wrong glyph that stays is not.
@Suite(.tags(.unit)) struct GlyphReloadTests {
    @Test func theStandInsAreSegmanceScreens() {
        let all = Set(GlyphSet.allCases.flatMap { set in (0..<8).map { set.standIn(UInt8($0)) } }).subtracting([" "])
        #expect(ScreenSequence.glyphStandIns == all)
        #expect(ScreenSequence.bigDigitPieces == Set(BigDigitGlyph.allCases.prefix(3).map(\.standIn)))
    }

    @Test func aGlyphShownInTheOtherSetWhileCGRAMLoadsIsARedraw() {
        let playing = ["■ 1/3 Intro     ", "0:00/0:20       "]
        let countIn = ["Ready in     ≣≣█", "Intro        ▄▄█"]
        // The stop glyph (slot 2) drawn as the big digits' slot 2 for a moment.
        let loading = ["≣ 1/3 Intro     ", "0:00/0:20       "]
        #expect(ScreenSequence.mismatch(observed: [playing, loading, countIn], expected: [playing, countIn]) == nil)
        // And back: the pieces of a numeral drawn as symbols while the symbols load.
        let back = ["Ready in     ■■█", "Intro        ▄▄█"]
        #expect(ScreenSequence.mismatch(observed: [countIn, back, playing], expected: [countIn, playing]) == nil)
        // Marks A and B (symbols' slots 4 and 5) while the big digits load: A's slot is the
        // big digits' play, B's is free and shows blank (seen in the box).
        let marked = ["▶ 1/3 Intro   ⒶⒷ", "#:##/#:##    ⟲x2"]
        let countdown = ["Ready in     ≣≣█", "Verse        ▄▄█"]
        let swapping = ["▀ 1/3 Intro   ▶ ", "#:##/#:##    ⟲x2"]
        #expect(ScreenSequence.mismatch(observed: [marked, swapping, countdown], expected: [marked, countdown]) == nil)
        // A blank where a letter was is no reload of glyphs.
        let lost = ["▶ 1/3 Intro   ⒶⒷ", "#:##/#:##    ⟲ 2"]
        #expect(ScreenSequence.mismatch(observed: [marked, lost, countdown], expected: [marked, countdown]) != nil)
        // Between two frames of one set, a glyph that is neither frame's is wrong.
        let paused = ["‖ 1/3 Intro     ", "0:00/0:20       "]
        let wrong = ["▶ 1/3 Intro     ", "0:00/0:20       "]
        #expect(ScreenSequence.mismatch(observed: [playing, wrong, paused], expected: [playing, paused]) != nil)
    }
}
