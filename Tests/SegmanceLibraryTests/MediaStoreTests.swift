import Foundation
import SegmanceLibrary
import SegmanceTestSupport
import Testing

@Suite struct MediaStoreTests {
    let temp = TempDirs()

    private func store() throws -> MediaStore {
        try MediaStore(directory: try temp.make("store") + "/media")
    }

    private func write(_ samples: [Int16], to store: MediaStore, chunk: Int = 1000) throws -> String {
        let writer = try store.makeWriter()
        var offset = 0
        while offset < samples.count {
            let end = min(samples.count, offset + chunk * 2)
            try samples[offset..<end].withUnsafeBufferPointer { try writer.write($0) }
            offset = end
        }
        return try writer.commit().hash
    }

    @Test func aCommittedFileIsNamedByTheHashOfItsBytes() throws {
        let store = try store()
        let samples = TestFiles.noise16(frames: 10_000)
        let hash = try write(samples, to: store)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path(of: hash)))
        #expect(hash == SHA256.hex(bytes))
        #expect(bytes.count == 40_000)
        #expect(bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == samples)
        let contents = try store.contents()
        #expect(contents.media == [hash])
        #expect(contents.temporary.isEmpty)
    }

    @Test func identicalContentIsStoredOnce() throws {
        let store = try store()
        let samples = TestFiles.noise16(frames: 5000, seed: 7)
        let first = try write(samples, to: store, chunk: 333)
        let second = try write(samples, to: store, chunk: 4096)
        #expect(first == second)
        #expect(try store.contents().media.count == 1)
        #expect(try store.contents().temporary.isEmpty)
        let other = try write(TestFiles.noise16(frames: 5000, seed: 8), to: store)
        #expect(other != first)
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
