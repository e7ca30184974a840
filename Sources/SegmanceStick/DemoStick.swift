import Foundation
import SndFile

/// Writes a demo stick of original, synthesized music (deterministic, no samples):
///
/// - `Warm-up Session/`: zero-config, "01 Warm-up.wav", "02 Groove.flac", "03 Cool-down.wav"
///   (48 kHz).
/// - `Street Jam/`: "street-jam.wav" at 44.1 kHz (so loading resamples it) and a
///   `routine.toml` cutting it into three parts with moves, cues, a saved loop and a
///   3-second countdown.
public enum DemoStick {
    /// The demo manifest (times: `from`/`to` in the file, `loop` and `at` part-relative).
    public static let streetJamManifest = """
        title = "Street Jam"
        subtitle = "Demo routine"
        countdown = 3

        [[part]]
        title = "Intro"
        file = "street-jam.wav"
        from = "0:00"
        to = "0:16"
        moves = [
          { type = "Dance", name = "Walk in", note = "from stage left" },
          { type = "Dance", name = "Freeze", at = "0:08" },
        ]

        [[part]]
        title = "Groove"
        file = "street-jam.wav"
        from = "0:16"
        to = "0:48"
        loop = { a = "0:08", b = "0:16" }
        moves = [
          { type = "Dance", name = "Box step", at = "0:00" },
          { type = "Juggle", name = "3-ball cascade", note = "eyes up", at = "0:08" },
          { type = "Transition", name = "Spin out", at = "0:24.5" },
        ]

        [[part]]
        title = "Finale"
        file = "street-jam.wav"
        from = "0:48"
        to = "1:12"
        moves = [
          { type = "Juggle", name = "Mills mess" },
          { type = "Dance", name = "Final pose", note = "hold 4 counts", at = "0:20" },
        ]

        """

    /// Writes the demo stick into `dir` (created if needed; existing files are replaced).
    public static func write(to dir: String) throws {
        let fm = FileManager.default
        let warmUp = dir + "/Warm-up Session"
        let jam = dir + "/Street Jam"
        try fm.createDirectory(atPath: warmUp, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: jam, withIntermediateDirectories: true)

        // 120 BPM: a bar is 2 s.
        let warmUpSong = DemoSynth(bpm: 120, rate: 48000, progression: [57, 53, 60, 55],
                                   minor: [true, false, false, false], sections: [
                                       .init(bars: 4, drums: false, bass: true, busyHats: false, high: false),
                                       .init(bars: 11, drums: true, bass: true, busyHats: false, high: false),
                                   ])
        try write(warmUpSong.render(), to: warmUp + "/01 Warm-up.wav", format: .wavPCM16, rate: 48000)

        let groove = DemoSynth(bpm: 120, rate: 48000, progression: [50, 50, 53, 55],
                               minor: [true, true, false, false], sections: [
                                   .init(bars: 15, drums: true, bass: true, busyHats: true, high: false),
                               ], seed: 0xB0B)
        try write(groove.render(), to: warmUp + "/02 Groove.flac", format: .flac16, rate: 48000)

        let coolDown = DemoSynth(bpm: 120, rate: 48000, progression: [60, 57, 53, 55],
                                 minor: [false, true, false, false], sections: [
                                     .init(bars: 10, drums: false, bass: true, busyHats: false, high: true),
                                 ], seed: 0xC001)
        try write(coolDown.render(), to: warmUp + "/03 Cool-down.wav", format: .wavPCM16, rate: 48000)

        // 74 s: intro 0:00–0:16 (8 bars), groove 0:16–0:48 (16 bars), finale 0:48–1:12 (12 bars), a 2 s tail.
        let streetJam = DemoSynth(bpm: 120, rate: 44100, progression: [52, 48, 55, 50],
                                  minor: [true, false, false, false], sections: [
                                      .init(bars: 8, drums: false, bass: false, busyHats: false, high: false),
                                      .init(bars: 16, drums: true, bass: true, busyHats: false, high: false),
                                      .init(bars: 12, drums: true, bass: true, busyHats: true, high: true),
                                      // A ringing last chord after the finale's cut point.
                                      .init(bars: 1, drums: false, bass: false, busyHats: false, high: true),
                                  ], seed: 0x57EE7)
        try write(streetJam.render(), to: jam + "/street-jam.wav", format: .wavPCM16, rate: 44100)
        try streetJamManifest.write(toFile: jam + "/routine.toml", atomically: true, encoding: .utf8)
    }

    private static func write(_ samples: [Float], to path: String, format: SoundFileWriteFormat,
                              rate: Int) throws {
        let file = try SoundFile(writingTo: path, format: format, sampleRate: rate, channels: 2)
        try file.write(samples)
        try file.close()
    }
}
