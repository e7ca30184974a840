import Foundation
import SegmanceLibrary
import SegmanceTestSupport
import Speech
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Spoken counts rendered by the real espeak-ng (deploy/install-deps.sh installs it: these
/// tests need it and fail, never skip, without it) and cached as files in a library folder.
@Suite(.tags(.integration)) struct SpokenCountsTests {
    let temp = TempDirs()
    static let rate = 48_000

    func counts(_ speech: EspeakSpeech = EspeakSpeech()) throws -> SpokenCounts {
        SpokenCounts(library: try temp.make("spoken"), sampleRate: Self.rate, speech: speech)
    }

    static func bytes(_ path: String) -> [UInt8] { Array((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()) }

    @Test func theFirstLoadSpeaksEveryWordAndCachesItTheNextReadsTheCache() throws {
        let counts = try counts()
        let first = try counts.load()
        #expect(first.spoken == 20)
        #expect(first.problems.isEmpty)
        #expect(first.sounds.count == SpokenCounts.words.count)
        for (i, sound) in first.sounds.enumerated() {
            let word = SpokenCounts.words[i]
            // Trimmed to its onset, normalised, faded to 0, and shorter than a beat at 120 BPM.
            #expect(abs(sound[0]) >= CountSound.onsetThreshold, "\(word) starts with its onset")
            #expect(abs(sound.map(abs).max()! - CountSound.peak) < 1e-6, "\(word)'s peak")
            #expect(sound.last == 0)
            #expect(sound.count > Self.rate / 10 && sound.count < (i < 8 ? Self.rate / 2 : Self.rate), "\(word): \(sound.count) frames")
            #expect(FileManager.default.fileExists(atPath: counts.path(of: word)))
        }
        print("spoken counts: one to eight last \(first.sounds.prefix(8).map { $0.count * 1000 / Self.rate }) ms")
        let second = try counts.load()
        #expect(second.spoken == 0)
        #expect(second.problems.isEmpty)
        #expect(second.sounds == first.sounds)
    }

    @Test func espeakNgSpeaksTheSameBytesEveryTime() throws {
        let a = try counts(), b = try counts()
        let first = try a.load(), second = try b.load()
        #expect(first.sounds == second.sounds)
        for word in SpokenCounts.words {
            #expect(Self.bytes(a.path(of: word)) == Self.bytes(b.path(of: word)), "\(word)'s cache file")
        }
    }

    /// Damage done to a valid cache file, and the reason it is refused for.
    static let damages: [(name: String, damage: @Sendable ([UInt8]) -> [UInt8], reason: String)] = [
        ("empty", { _ in [] }, "no header (0 bytes)"),
        ("truncated", { Array($0.prefix($0.count / 2)) }, "bytes for"),
        ("a sample's byte flipped", { var b = $0; b[b.count - 100] ^= 0x40; return b }, "its SHA-256 does not match"),
        ("a longer file", { $0 + [0, 0, 0, 0] }, "bytes for"),
        ("another magic", { var b = $0; b[0] = UInt8(ascii: "X"); return b }, "no header"),
        ("another rate", { var b = $0; b[12] ^= 0x01; return b }, "Hz, not 48000"),
        ("garbage", { b in (0..<b.count).map { UInt8(truncatingIfNeeded: $0 &* 7919) } }, "no header"),
    ]

    @Test(arguments: damages.indices)
    func aDamagedCacheFileIsSpokenAgainAndRewritten(index: Int) throws {
        let (name, damage, reason) = Self.damages[index]
        let counts = try counts()
        let first = try counts.load()
        let path = counts.path(of: "seven")
        try Data(damage(Self.bytes(path))).write(to: URL(fileURLWithPath: path))
        let again = try counts.load()
        #expect(again.spoken == 1, "\(name)")
        #expect(again.sounds == first.sounds)
        #expect(again.problems.count == 1)
        if case .corrupt(let why)? = again.problems.first?.reason {
            #expect(why.contains(reason), "\(name): \(why)")
        } else {
            Issue.record("\(name): \(again.problems)")
        }
        #expect(again.problems.first?.path == path)
        #expect("\(again.problems[0])".hasPrefix("spoken counts: \(path): not a valid cached word ("))
        #expect(try counts.read("seven") == first.sounds[6], "rewritten whole")
    }

    @Test func aFIFOOrALinkWhereAWordWouldBeIsRefusedWithoutWaitingAndReplaced() throws {
        let counts = try counts()
        let first = try counts.load()
        unlink(counts.path(of: "four"))
        #expect(mkfifo(counts.path(of: "four"), 0o644) == 0)
        unlink(counts.path(of: "five"))
        #expect(symlink(counts.path(of: "six"), counts.path(of: "five")) == 0)
        let again = try counts.load()
        #expect(again.spoken == 2)
        #expect(again.sounds == first.sounds)
        #expect(again.problems == [SpokenCountError(path: counts.path(of: "four"), .corrupt("not a regular file")),
                                   SpokenCountError(path: counts.path(of: "five"), .corrupt("open: Too many levels of symbolic links"))])
        #expect(try counts.read("four") == first.sounds[3])
        #expect(try counts.read("five") == first.sounds[4])
    }

    @Test func aSampleThatIsNotASoundIsRefusedEvenWithItsChecksum() throws {
        let counts = try counts()
        _ = try counts.load()
        var sound = try #require(try counts.read("two"))
        sound[sound.count / 2] = .nan
        try counts.write(sound, "two")
        #expect(throws: SpokenCountError(path: counts.path(of: "two"), .corrupt("sample \(sound.count / 2) is nan"))) {
            try counts.read("two")
        }
        sound[sound.count / 2] = 0
        sound[0] = 0
        try counts.write(sound, "two")
        #expect(throws: SpokenCountError(path: counts.path(of: "two"), .corrupt("it does not start with its onset"))) {
            try counts.read("two")
        }
    }

    @Test func withoutEspeakNgAndNoCacheTheErrorNamesTheMissingProgram() throws {
        let counts = try counts(EspeakSpeech(executable: "/nonexistent/espeak-ng"))
        let expected = SpokenCountError(path: counts.path(of: "one"), .speech(SpeechError(text: "one",
            .unavailable("/nonexistent/espeak-ng not found (install the Debian package espeak-ng)"))))
        #expect(throws: expected) { try counts.load() }
        #expect("\(expected)" == "spoken counts: \(counts.path(of: "one")) is not cached and the speech for \"one\" "
                + "unavailable: /nonexistent/espeak-ng not found (install the Debian package espeak-ng)")
    }

    @Test func withoutEspeakNgACompleteCacheStillSpeaks() throws {
        let counts = try counts()
        let first = try counts.load()
        let absent = SpokenCounts(library: String(counts.directory.dropLast(SpokenCounts.folder.count + 1)),
                                  sampleRate: Self.rate, speech: EspeakSpeech(executable: "/nonexistent/espeak-ng"))
        // Not the same identity would be another cache: the executable is not part of the key.
        #expect(absent.path(of: "one") == counts.path(of: "one"))
        let cached = try absent.load()
        #expect(cached.spoken == 0)
        #expect(cached.sounds == first.sounds)
    }

    @Test func aSynthesizerThatFailsOrWritesNoWAVIsNamed() throws {
        let failing = try counts(EspeakSpeech(executable: "/bin/false"))
        #expect(throws: SpokenCountError(path: failing.path(of: "one"),
                                         .speech(SpeechError(text: "one", .failed("/bin/false ended with status 1"))))) {
            try failing.load()
        }
        let echoing = try counts(EspeakSpeech(executable: "/bin/echo"))
        do {
            _ = try echoing.load()
            Issue.record("echo's output was taken for speech")
        } catch {
            #expect(error.reason == .speech(SpeechError(text: "one",
                .failed("its output is not a mono 16-bit WAV: no RIFF/WAVE header (32 bytes)"))), "\(error)")
        }
    }

    @Test func aCacheThatCannotBeWrittenStillSpeaksAndSaysWhy() throws {
        let library = try temp.make("spoken")
        // A file where the cache's folder would be.
        try Data().write(to: URL(fileURLWithPath: library + "/" + SpokenCounts.folder))
        let counts = SpokenCounts(library: library, sampleRate: Self.rate)
        let loaded = try counts.load()
        #expect(loaded.sounds.count == 20)
        #expect(loaded.spoken == 20)
        // Reading a word's file fails too (not a folder): said, then spoken, then not written.
        #expect(loaded.problems.contains { if case .unwritable(let why) = $0.reason { why.hasPrefix("open: ") } else { false } })
    }
}
