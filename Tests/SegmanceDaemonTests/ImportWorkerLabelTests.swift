import Foundation
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing

/// The daemon's import path: the label reaches the worker process (`--label=`, so that a
/// label starting with a dash is not taken for an option) and names the loose songs' routine.
@Suite(.tags(.integration), .serialized) struct ImportWorkerLabelTests {
    @Test func theWorkerTitlesLooseSongsWithTheLabel() throws {
        let folders = TempDirs()
        let dir = try folders.make("worker-label")
        try TestFiles.mkdir(dir + "/sda1")
        try TestFiles.write(TestFiles.sine(frequency: 440, rate: 48_000, frames: 24_000), to: dir + "/sda1/01 Warmup.wav")
        let runner = ProcessImportRunner(executable: RunCommandTests.binary, library: dir + "/library", sampleRate: 48_000)
        runner.start(dir + "/sda1", label: "-Salsa class")
        let events = runner.waitUntilFinished()
        #expect(events.contains(.routine(title: "-Salsa class", outcome: .added)), "\(events)")
        #expect(try Library(directory: dir + "/library").routines().map(\.title) == ["-Salsa class"])
    }
}
