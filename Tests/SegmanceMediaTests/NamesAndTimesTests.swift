import SegmanceStick
import Testing

@Suite(.tags(.unit)) struct NamesAndTimesTests {
    @Test(arguments: [
        ("0:00", 0),
        ("1:05.5", 3_144_000),
        ("0:20", 960_000),
        ("1:00:00", 172_800_000),
        ("12", 576_000),
        ("12.25", 588_000),
        ("0.00001", 0),          // finer than a frame: rounds to nearest
        ("0.00002", 1),
        ("2:03.125", 5_910_000),
        (" 0:10 ", 480_000),
    ] as [(String, Int64)])
    func parsesTimes(text: String, frames: Int64) {
        #expect(ManifestTime.frames(text, rate: 48000) == frames)
    }

    @Test(arguments: ["", "1:5", "1:75", "abc", "1:05.", "-3", "1:2:3", "1:60:00", "1.2.3", ":30", "1:05.5x",
                      "99999999999999999999", "400000:00:00"])
    func rejectsBadTimes(text: String) {
        #expect(ManifestTime.frames(text, rate: 48000) == nil)
    }

    @Test func doubleSecondsUseTheirDecimalSpelling() {
        #expect(ManifestTime.frames(seconds: 0.1, rate: 44100) == 4410)
        #expect(ManifestTime.frames(seconds: 65.5, rate: 48000) == 3_144_000)
    }

    @Test(arguments: [
        (["10 x.wav", "2 x.wav", "1 x.wav"], ["1 x.wav", "2 x.wav", "10 x.wav"]),
        (["Track 10.mp3", "track 9.mp3", "Track 1.mp3"], ["Track 1.mp3", "track 9.mp3", "Track 10.mp3"]),
        (["b.wav", "a.wav", "A.wav"], ["A.wav", "a.wav", "b.wav"]),
        (["x2.wav", "x10.wav", "x.wav"], ["x.wav", "x2.wav", "x10.wav"]),
        (["1.wav", "01.wav"], ["01.wav", "1.wav"]),
    ])
    func naturalOrder(input: [String], sorted: [String]) {
        #expect(input.sorted(by: FileNames.naturalLess) == sorted)
    }

    @Test(arguments: [
        ("01 Intro.mp3", "Intro"),
        ("01-Intro.wav", "Intro"),
        ("01_Intro.flac", "Intro"),
        ("1. Intro.wav", "Intro"),
        ("02 - Shines.flac", "Shines"),
        ("Shines.flac", "Shines"),
        ("10 Cha cha cha.ogg", "Cha cha cha"),
        ("03_Cool_down.wav", "Cool down"),
        ("01.wav", "01"),
        ("2Pac style.wav", "2Pac style"),
        ("Song.v2.wav", "Song.v2"),
    ])
    func partTitles(file: String, title: String) {
        #expect(FileNames.partTitle(file) == title)
    }

    @Test(arguments: ["._01 Intro.mp3", ".DS_Store", ".Spotlight-V100", ".Trashes", ".fseventsd",
                      "System Volume Information", "$RECYCLE.BIN", ".hidden.wav", "Thumbs.db"])
    func debris(name: String) {
        #expect(FileNames.isDebris(name))
    }

    @Test(arguments: ["01 Intro.mp3", "routine.toml", "Salsa"])
    func notDebris(name: String) {
        #expect(!FileNames.isDebris(name))
    }
}
