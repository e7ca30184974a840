import AudioDecoding
import Foundation
import GRDB
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import SndFile
import StickTransfer
import Testing

/// Imports of real folders with generated audio into real SQLite libraries.
@Suite(.tags(.integration)) struct ImporterTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }

    /// Every format libsndfile 1.2 writes (and so every one a performer is likely to have
    /// besides AAC), at other rates and channel counts too: stored as 48 kHz stereo PCM.
    @Test(arguments: [
        (SoundFileWriteFormat.wavPCM16, 48_000, 2), (.wavPCM16, 44_100, 1), (.wavFloat, 48_000, 6),
        (.flac16, 48_000, 2), (.flac16, 96_000, 2), (.oggVorbis, 44_100, 2), (.opus, 48_000, 2),
        (.mp3, 44_100, 2), (.aiffPCM16, 22_050, 1),
    ])
    func everyFormatIsStoredAsOutputPCM(format: SoundFileWriteFormat, rate: Int, channels: Int) throws {
        let stick = try fixture.stick()
        let ext = ["wavPCM16": "wav", "wavFloat": "wav", "flac16": "flac", "oggVorbis": "ogg", "opus": "opus",
                   "mp3": "mp3", "aiffPCM16": "aiff"][format.rawValue]!
        try Sticks.tone(stick + "/Formats/01 Tone.\(ext)", seconds: 2, rate: rate, channels: channels, format: format)
        let (summary, events) = try fixture.importStick(stick)
        #expect(events.problems.isEmpty, "\(events.problems)")
        #expect(summary == ImportSummary(added: 1))
        let library = try fixture.open()
        let part = try #require(try library.routines().first?.parts.first)
        // Lossy codecs carry encoder delay and padding: a few ms either way.
        let slack: Int64 = [.mp3, .oggVorbis, .opus].contains(format) ? 4_000 : 64
        #expect(abs(part.length - 96_000) <= slack, "\(part.length) frames")
        let frames = try #require(try library.mediaFrames(part.audio.id))
        #expect(library.store.size(of: part.audio.id) == frames * 4)
        // The stored audio sounds: a 440 Hz tone at half scale, on both channels.
        let mapped = try library.store.map(part.audio.id, frames: frames)
        let middle = UnsafeBufferPointer(start: mapped.base + Int(frames / 2) * 2, count: 4800 * 2)
        let peakL = (0..<4800).map { abs(Int(middle[2 * $0])) }.max() ?? 0
        let peakR = (0..<4800).map { abs(Int(middle[2 * $0 + 1])) }.max() ?? 0
        #expect(peakL > 12_000 && peakL < 20_000 && abs(peakL - peakR) < 1500, "\(peakL) \(peakR)")
        #expect(try library.verify(deep: true) == [])
    }

    @Test func sixteenBitStereoAtTheOutputRateIsStoredBitExact() throws {
        let stick = try fixture.stick()
        let samples = TestFiles.noise16(frames: 30_000, seed: 11)
        try TestFiles.mkdir(stick + "/Exact")
        try TestFiles.write(samples, to: stick + "/Exact/a.wav")
        try fixture.importStick(stick)
        let library = try fixture.open()
        let part = try #require(try library.routines().first?.parts.first)
        let mapped = try library.store.map(part.audio.id, frames: 30_000)
        #expect(Array(UnsafeBufferPointer(start: mapped.base, count: 60_000)) == samples)
        let key = try MediaKey.of(file: stick + "/Exact/a.wav", rate: 48_000)
        #expect(part.audio.id == key)
    }

    /// Each error case of the issue, on one stick: every problem names its file and reason,
    /// a bad file fails its part, a bad manifest part its part, a manifest that cannot be
    /// read its routine, and the rest imports.
    @Test func everyErrorCaseHasItsMessageAndTheRestImports() throws {
        let stick = try fixture.stick()
        let outside = try fixture.stick()
        try Sticks.tone(outside + "/secret.wav")
        // Bad files: the routine keeps its good part.
        try Sticks.tone(stick + "/Files/01 Good.wav")
        try TestFiles.writeEmpty(stick + "/Files/02 Empty.wav")
        try Sticks.tone(stick + "/Files/03 Cut.wav", seconds: 1)
        try TestFiles.truncate(stick + "/Files/03 Cut.wav", to: 60_000)
        try TestFiles.writeText("la la la", to: stick + "/Files/04 Lyrics.mp3")
        try Data(Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96]).write(to: URL(fileURLWithPath: stick + "/Files/05 Ringtone.mid"))
        try FileManager.default.createSymbolicLink(atPath: stick + "/Files/06 Away.wav", withDestinationPath: outside + "/secret.wav")
        // Bad manifests: one that cannot be read keeps its routine out; one whose every part
        // is bad makes each song a part.
        func manifest(_ name: String, _ text: String) throws {
            try Sticks.tone(stick + "/\(name)/song.wav", seconds: 10)
            try TestFiles.writeText(text, to: stick + "/\(name)/routine.toml")
        }
        try manifest("Syntax", "title = \"x\"\n[[part]]\nfile = \"song.wav\nto = 3\n")
        try manifest("Escape", "[[part]]\nfile = \"../Files/01 Good.wav\"\n")
        try manifest("Order", "[[part]]\nfile = \"song.wav\"\nfrom = \"0:05\"\nto = \"0:02\"\n")
        try manifest("Past", "[[part]]\nfile = \"song.wav\"\nto = \"0:12\"\n")
        try manifest("Loop", "[[part]]\nfile = \"song.wav\"\nfrom = 2\nto = 6\nloop = { a = 1, b = 5 }\n")
        let (summary, events) = try fixture.importStick(stick)
        let supported = "supported: \(AudioFormats.supportedSummary)"
        #expect(events.problems == [
            "Escape/routine.toml: line 2: part 1: 'file' = \"../Files/01 Good.wav\" leaves the routine folder; paths stay inside it",
            "Escape: no part of its routine.toml can be used: each song is a part",
            "Files/06 Away.wav: link leads outside the stick (to \(outside)/secret.wav); refused",
            "Files/02 Empty.wav: empty file (0 bytes)",
            "Files/03 Cut.wav: truncated file: the header announces 192000 bytes of audio, the file holds 59956",
            "Files/04 Lyrics.mp3: not an audio file (it is a text file)",
            "Files/05 Ringtone.mid: unsupported format (MIDI); \(supported)",
            "Loop/routine.toml: line 5: part 1: loop 0:01–0:05 lies outside the part (length 0:04; loop times are part-relative)",
            "Loop: no part of its routine.toml can be used: each song is a part",
            "Order/routine.toml: line 4: part 1: 'from' 0:05 must be before 'to' 0:02",
            "Order: no part of its routine.toml can be used: each song is a part",
            "Past/routine.toml: line 3: part 1: 'to' 0:12 is past the end of \"song.wav\" (0:10)",
            "Past: no part of its routine.toml can be used: each song is a part",
            "Syntax/routine.toml: line 3: TOML syntax error: \(syntaxMessage(events))",
            "Syntax: routine \"Syntax\" skipped: its routine.toml has 1 problem",
        ])
        #expect(summary == ImportSummary(added: 5, failed: 1, leftOut: 4))
        let library = try fixture.open()
        let routines = try library.routines()
        #expect(routines.map(\.title) == ["Escape", "Files", "Loop", "Order", "Past"])
        #expect(routines.map { $0.parts.map(\.title) } == [["song"], ["Good"], ["song"], ["song"], ["song"]])
        #expect(try library.verify() == [])
    }

    private func syntaxMessage(_ events: [ImportEvent]) -> String {
        let prefix = "Syntax/routine.toml: line 3: TOML syntax error: "
        return events.problems.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } ?? "(none)"
    }

    @Test func twoRoutinesWithOneTitleImportTheFirstOnly() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["One"])
        try Sticks.routine(stick + "/Old/Salsa", parts: ["Two", "Three"])
        let (summary, events) = try fixture.importStick(stick)
        #expect(summary == ImportSummary(added: 1, failed: 1))
        // Folders are taken in natural order, depth first: Old/Salsa comes before Salsa.
        #expect(events.problems == [
            "Salsa: routine skipped: another routine on this stick (Old/Salsa) has the title \"Salsa\"",
        ])
        let library = try fixture.open()
        #expect(try library.routines().first?.parts.map(\.title) == ["Two", "Three"])
        #expect(try library.verify() == [])
    }

    @Test func progressCountsRoutinesAndPercent() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/A", parts: ["One", "Two"], seconds: 1)
        try Sticks.routine(stick + "/B", parts: ["Three"], seconds: 2)
        let (_, events) = try fixture.importStick(stick)
        let progress = events.compactMap { if case .progress(let p) = $0 { p } else { nil } }
        #expect(events.first == .started(routines: 2))
        #expect(progress.first == ImportProgress(routine: 1, count: 2, title: "A", percent: 0))
        #expect(progress.last == ImportProgress(routine: 2, count: 2, title: "B", percent: 100))
        // Percent rises within each routine and never repeats a value.
        for r in 1...2 {
            let percents = progress.filter { $0.routine == r }.map(\.percent)
            #expect(percents == percents.sorted() && Set(percents).count == percents.count && percents.count > 3, "\(percents)")
        }
        #expect(events.last == .finished(ImportSummary(added: 2)))
    }

    @Test func identicalContentChangesNothingAndSaysSo() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro", "Shines"])
        let first = try fixture.importStick(stick)
        #expect(first.summary == ImportSummary(added: 1))
        let library = try fixture.open()
        let before = try library.pool_dataVersionAndFiles()
        let second = try fixture.importStick(stick, into: library)
        #expect(second.summary == ImportSummary(unchanged: 1))
        #expect(second.events.contains(.routine(title: "Salsa", outcome: .unchanged)))
        #expect(second.summary.lines == ["Import done", "nothing changed"])
        #expect(try library.pool_dataVersionAndFiles() == before)
    }

    @Test func reimportReplacesPartsAndKeepsLoopsAndResumeWhereThePartStillExists() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro", "Shines", "Outro"], seconds: 2)
        try fixture.importStick(stick)
        let library = try fixture.open()
        let loop = ABLoop(a: 10_000, b: 40_000)
        try library.apply(.savedLoop(routine: "Salsa", part: 1, partTitle: "Shines", loop: loop))
        try library.apply(.savedLoop(routine: "Salsa", part: 2, partTitle: "Outro", loop: ABLoop(a: 0, b: 90_000)))
        try library.apply(.resume(ResumePoint(routine: "Salsa", part: 1, partTitle: "Shines", position: 50_000)))
        let oldMedia = try library.store.contents().media

        // The new version: Shines moves first with new (shorter) audio, Outro gets 1 s of
        // audio (its saved loop no longer fits), Intro is gone, Finale is new.
        try FileManager.default.removeItem(atPath: stick + "/Salsa")
        try Sticks.tone(stick + "/Salsa/1 Shines.wav", seconds: 1.5, frequency: 700)
        try Sticks.tone(stick + "/Salsa/2 Outro.wav", seconds: 1, frequency: 800)
        try Sticks.tone(stick + "/Salsa/3 Finale.wav", seconds: 1, frequency: 900)
        let (summary, _) = try fixture.importStick(stick, into: library)
        #expect(summary == ImportSummary(replaced: 1))
        let routine = try #require(try library.routines().first)
        #expect(routine.parts.map(\.title) == ["Shines", "Outro", "Finale"])
        #expect(routine.parts.map(\.savedLoop) == [loop, nil, nil])
        #expect(try library.resume() == ResumePoint(routine: "Salsa", part: 0, partTitle: "Shines", position: 50_000))
        // The old audio no part uses any more is gone from the store.
        let media = try library.store.contents().media
        #expect(media.count == 3 && media.isDisjoint(with: oldMedia))
        #expect(try library.verify() == [])
    }

    @Test func aResumePointOnAPartThatIsGoneRestartsTheRoutine() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro", "Shines"], seconds: 1)
        try fixture.importStick(stick)
        let library = try fixture.open()
        try library.apply(.resume(ResumePoint(routine: "Salsa", part: 1, partTitle: "Shines", position: 100)))
        try FileManager.default.removeItem(atPath: stick + "/Salsa/2 Shines.wav")
        try fixture.importStick(stick, into: library)
        #expect(try library.resume() == ResumePoint(routine: "Salsa", part: 0, partTitle: "", position: 0))
    }

    /// The stick goes away while its second routine imports: that routine is abandoned
    /// whole, the first stays, and no file of the abandoned one is left behind.
    @Test func aStickThatDisappearsAbortsTheRoutineCleanly() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/A", parts: ["One", "Two"], seconds: 1)
        try Sticks.routine(stick + "/B", parts: ["Three", "Four", "Five"], seconds: 1)
        var pulled = false
        let (summary, events) = try fixture.importStick(stick) { event, _ in
            if case .progress(let p) = event, p.routine == 2, p.percent >= 40, !pulled {
                pulled = true
                try? FileManager.default.removeItem(atPath: stick)
            }
        }
        #expect(pulled)
        #expect(summary == ImportSummary(added: 1, failed: 1, stopped: "stick removed"))
        #expect(events.problems.last == "B: routine \"B\" not imported: the stick went away during the import")
        let library = try fixture.open(recover: false)
        #expect(try library.routines().map(\.title) == ["A"])
        #expect(try library.verify() == [])
    }

    @Test func cancellingStopsAtTheNextChunkAndLeavesNothing() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/A", parts: ["One", "Two"], seconds: 2)
        let (summary, events) = try fixture.importStick(stick) { event, importer in
            if case .progress(let p) = event, p.percent >= 30 { importer.cancel() }
        }
        #expect(summary == ImportSummary(failed: 1, stopped: "stick removed"))
        #expect(events.contains(.routineFailed(title: "A", reason: "the import was cancelled: the stick went away")))
        let library = try fixture.open(recover: false)
        #expect(try library.routines().isEmpty)
        let contents = try library.store.contents()
        #expect(contents.media.isEmpty && contents.temporary.isEmpty)
    }

    @Test func removingARoutineDeletesTheMediaOnlyItUsed() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/A", parts: ["One"])
        try Sticks.routine(stick + "/B", parts: ["Two"], frequency: 300)
        // C shares A's audio (same bytes): one media file for both.
        try TestFiles.mkdir(stick + "/C")
        try FileManager.default.copyItem(atPath: stick + "/A/1 One.wav", toPath: stick + "/C/1 Same.wav")
        try fixture.importStick(stick)
        let library = try fixture.open()
        #expect(try library.store.contents().media.count == 2)
        #expect(try library.remove(titled: "A"))
        #expect(try library.store.contents().media.count == 2)
        #expect(try library.remove(titled: "C"))
        #expect(try library.store.contents().media.count == 1)
        #expect(try !library.remove(titled: "C"))
        #expect(try library.routines().map(\.title) == ["B"])
        #expect(try library.verify() == [])
    }

    @Test func openingSweepsWhatAnInterruptedImportLeft() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/A", parts: ["One"])
        try fixture.importStick(stick)
        let library = try fixture.open()
        let media = library.store.directory
        try TestFiles.writeText("partial", to: media + "/tmp-1-abc.part")
        try TestFiles.writeText("complete but never committed", to: media + "/" + String(repeating: "ab", count: 32) + ".pcm")
        let problems = try library.verify()
        #expect(problems == ["media folder: leftover temporary file tmp-1-abc.part",
                             "media folder: orphan file \(String(repeating: "ab", count: 32)).pcm"])
        let swept = try library.sweep(wait: true)
        #expect(swept.temporaryFiles == ["tmp-1-abc.part"])
        #expect(swept.orphanMedia == [String(repeating: "ab", count: 32)])
        #expect(try library.verify() == [])
    }

    @Test func verifyFindsAMissingFileAndRowsThatDoNotMatchTheirDigest() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/A", parts: ["One", "Two"])
        try fixture.importStick(stick)
        let library = try fixture.open()
        let hash = try #require(try library.routines().first?.parts.first?.audio.id)
        try library.store.remove(hash)
        let queue = try DatabaseQueue(path: library.databasePath)
        try queue.write { try $0.execute(sql: "UPDATE part SET title = 'Changed' WHERE position = 1") }
        #expect(try library.verify() == [
            "media \(hash): file missing",
            "routine \"A\": rows do not match the digest committed with it",
        ])
    }
}

extension Library {
    /// Everything an import could change: SQLite's data version as another connection
    /// sees it, the database and WAL sizes, the media folder.
    func pool_dataVersionAndFiles() throws -> [String] {
        let queue = try DatabaseQueue(path: databasePath)
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, title, digest FROM routine").map { "\($0)" }
                + Row.fetchAll(db, sql: "SELECT * FROM part").map { "\($0)" }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map { name -> String in
            let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? -1
            return "\(name) \(size)"
        }
        let media = try store.contents()
        return rows + files + media.media.sorted() + media.temporary
    }
}
