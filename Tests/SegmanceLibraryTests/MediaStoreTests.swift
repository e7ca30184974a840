import Foundation
import LinuxSystem
import SegmanceLibrary
import SegmanceTestSupport
import Testing

@Suite struct MediaStoreTests {
    let temp = TempDirs()

    private func store() throws -> MediaStore {
        try MediaStore(directory: try temp.make("store") + "/media")
    }

    /// Writes `samples` in chunks and commits them as `name` (by default, the SHA-256 of the samples).
    @discardableResult
    private func write(_ samples: [Int16], to store: MediaStore, chunk: Int = 1000, as name: String? = nil) throws -> String {
        let writer = try store.makeWriter()
        var offset = 0
        while offset < samples.count {
            let end = min(samples.count, offset + chunk * 2)
            try samples[offset..<end].withUnsafeBufferPointer { try writer.write($0) }
            offset = end
        }
        let hash = name ?? samples.withUnsafeBytes { SHA256.hex($0) }
        _ = try writer.commit(as: hash)
        return hash
    }

    @Test func aCommittedFileHoldsTheSamplesUnderItsName() throws {
        let store = try store()
        let samples = TestFiles.noise16(frames: 10_000)
        let hash = try write(samples, to: store)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path(of: hash)))
        #expect(bytes.count == 40_000)
        #expect(bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == samples)
        let contents = try store.contents()
        #expect(contents.media == [hash])
        #expect(contents.temporary.isEmpty)
    }

    @Test func contentAlreadyStoredIsKeptAndTheNewCopyDropped() throws {
        let store = try store()
        let samples = TestFiles.noise16(frames: 5000, seed: 7)
        let writer = try store.makeWriter()
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        #expect(try writer.commit(as: String(repeating: "1", count: 64)))
        let again = try store.makeWriter()
        try samples.withUnsafeBufferPointer { try again.write($0) }
        #expect(try !again.commit(as: String(repeating: "1", count: 64)))
        #expect(try store.contents().media.count == 1)
        #expect(try store.contents().temporary.isEmpty)
    }

    @Test func theKeyIsTheHashOfAHeaderAndTheFileBytes() throws {
        let dir = try temp.make("key")
        let bytes = Array("RIFF and some audio bytes".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/a.wav"))
        let key = try MediaKey.of(file: dir + "/a.wav", rate: 48_000)
        #expect(key == SHA256.hex(Array("segmance-pcm-1 s16le stereo 48000 Hz\n".utf8) + bytes))
        #expect(try MediaKey.of(file: dir + "/a.wav", rate: 44_100) != key)
        #expect(throws: SystemError.self) { _ = try MediaKey.of(file: dir + "/missing.wav", rate: 48_000) }
    }

    @Test func aDiscardedOrDroppedWriterLeavesNothing() throws {
        let store = try store()
        do {
            let writer = try store.makeWriter()
            try TestFiles.noise16(frames: 100).withUnsafeBufferPointer { try writer.write($0) }
            #expect(try store.contents().temporary.count == 1)
            writer.discard()
        }
        do {
            let writer = try store.makeWriter()
            try TestFiles.noise16(frames: 100).withUnsafeBufferPointer { try writer.write($0) }
        }
        let contents = try store.contents()
        #expect(contents.media.isEmpty && contents.temporary.isEmpty)
    }

    @Test func aMappingReadsTheStoredSamples() throws {
        let store = try store()
        let samples = TestFiles.noise16(frames: 20_000, seed: 3)
        let hash = try write(samples, to: store)
        let mapped = try store.map(hash, frames: 20_000)
        #expect(Array(UnsafeBufferPointer(start: mapped.base, count: 40_000)) == samples)
        // Prefault and release change residency, never content.
        mapped.prefault(0..<20_000)
        mapped.release(5000..<15_000)
        #expect(Array(UnsafeBufferPointer(start: mapped.base, count: 40_000)) == samples)
    }

    @Test func aMappingSurvivesTheFileBeingDeleted() throws {
        let store = try store()
        let samples = TestFiles.noise16(frames: 3000, seed: 4)
        let hash = try write(samples, to: store)
        let mapped = try store.map(hash, frames: 3000)
        try store.remove(hash)
        #expect(store.size(of: hash) == nil)
        #expect(Array(UnsafeBufferPointer(start: mapped.base, count: 6000)) == samples)
    }

    @Test func aFileOfTheWrongSizeIsRefusedWithItsPathAndSizes() throws {
        let store = try store()
        let hash = try write(TestFiles.noise16(frames: 1000), to: store)
        #expect {
            _ = try store.map(hash, frames: 1001)
        } throws: { error in
            "\(error)" == "mmap(\(store.path(of: hash))): holds 4000 bytes, the library expects 4004"
        }
        #expect(throws: SystemError.self) { _ = try store.map(String(repeating: "0", count: 64), frames: 10) }
    }
}
