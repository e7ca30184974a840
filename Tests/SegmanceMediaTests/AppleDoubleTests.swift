import Foundation
import SegmanceStick
import SegmanceTestSupport
import SndFile
import Testing

/// macOS leaves `._NAME` beside every file with extended attributes it copies to a FAT or
/// exFAT stick. libsndfile's `sf_open(path)` takes that sidecar for a Sound Designer II
/// resource fork and fails files whose format it only recognises after that check (an MP3
/// without an ID3 tag). Files are opened by descriptor, so no sibling is ever read.
@Suite(.tags(.integration)) struct AppleDoubleTests {
    let temp = TempDirs()

    static func fileExtension(_ format: SoundFileWriteFormat) -> String {
        switch format {
        case .mp3: "mp3"
        case .flac16: "flac"
        case .oggVorbis: "ogg"
        case .opus: "opus"
        case .wavPCM16, .wavFloat: "wav"
        case .aiffPCM16: "aiff"
        }
    }

    @Test func theSidecarIsARealAppleDoubleHeader() {
        let bytes = AppleDouble.bytes
        #expect(Array(bytes[0..<8]) == [0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00])
        #expect(String(decoding: bytes[8..<24], as: UTF8.self) == "Mac OS X        ")
        #expect(Array(bytes[24..<26]) == [0, 2])
        #expect(Array(bytes[26..<30]) == [0, 0, 0, 9])  // Finder info
        #expect(Array(bytes[38..<42]) == [0, 0, 0, 2])  // resource fork
        #expect(bytes.count == 50 + 3810 + 286)
    }

    @Test(arguments: [SoundFileWriteFormat.mp3, .flac16, .oggVorbis, .opus, .wavPCM16, .aiffPCM16])
    func aFileWithASidecarDecodesAsWithout(format: SoundFileWriteFormat) throws {
        let dir = try temp.make()
        let path = dir + "/01 Song." + Self.fileExtension(format)
        try TestFiles.write(TestFiles.sine(frequency: 440, rate: 48000, frames: 24_000), to: path, format: format)
        let alone = try SniffingDecoder().decodeAll(path).samples
        try AppleDouble.write(beside: path)
        if format == .mp3 {
            // No ID3 tag: libsndfile looks for a resource fork before it tries the MPEG sync.
            let head = try #require(FileHandle(forReadingAtPath: path)?.readData(ofLength: 2))
            #expect(head.first == 0xFF)
        }
        let beside = try SniffingDecoder().decodeAll(path).samples
        #expect(beside == alone)
    }

    @Test func aStickCopiedFromAMacChecksWithoutProblems() throws {
        let root = try temp.make("stick")
        let folder = root + "/From the Mac"
        try TestFiles.mkdir(folder)
        let formats: [SoundFileWriteFormat] = [.mp3, .flac16, .oggVorbis, .opus, .wavPCM16, .aiffPCM16]
        for (i, format) in formats.enumerated() {
            let path = folder + "/\(i + 1) Part.\(Self.fileExtension(format))"
            try TestFiles.write(TestFiles.sine(frequency: 330, rate: 48000, frames: 12_000), to: path, format: format)
            try AppleDouble.write(beside: path)
        }
        let content = StickChecker().check(root)
        #expect(content.problems.map(\.description) == [])
        #expect(content.routines.first?.parts.count == formats.count)
    }
}
