import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import SndFile
import StickTransfer
#if canImport(Glibc)
import Glibc
#endif

/// A library in a temporary folder, and the events of imports into it.
final class LibraryFixture {
    let temp = TempDirs()
    let directory: String

    init() throws {
        directory = try temp.make("library") + "/lib"
    }

    func open(recover: Bool = true) throws -> Library {
        try Library(directory: directory, recover: recover)
    }

    /// Imports `stick`; returns the summary and every event.
    @discardableResult
    func importStick(_ stick: String, into library: Library? = nil,
                     onEvent: @escaping (ImportEvent, Importer) -> Void = { _, _ in }) throws
        -> (summary: ImportSummary, events: [ImportEvent]) {
        let importer = Importer(library: try library ?? open())
        let events = EventLog()
        let summary = importer.run(stick) { event in
            events.items.append(event)
            onEvent(event, importer)
        }
        return (summary, events.items)
    }

    /// A new stick folder.
    func stick() throws -> String { try temp.make("stick") }
}

final class EventLog: @unchecked Sendable {
    var items: [ImportEvent] = []
}

extension [ImportEvent] {
    /// "path: reason" of every problem reported.
    var problems: [String] {
        compactMap { if case .problem(let p) = $0 { p.description } else { nil } }
    }
}

/// Writes routine folders.
enum Sticks {
    /// `folder/name` holding `seconds` of a tone in `format` at `rate`, with `channels`.
    static func tone(_ path: String, seconds: Double = 0.5, rate: Int = 48_000, channels: Int = 2,
                     format: SoundFileWriteFormat = .wavPCM16, frequency: Double = 440) throws {
        try TestFiles.mkdir((path as NSString).deletingLastPathComponent)
        let frames = Int(seconds * Double(rate))
        try TestFiles.write(TestFiles.sine(frequency: frequency, rate: rate, frames: frames, channels: channels),
                            to: path, format: format, rate: rate, channels: channels)
    }

    /// A zero-config routine folder with one tone per title.
    static func routine(_ folder: String, parts: [String], seconds: Double = 0.5, frequency: Double = 440) throws {
        for (i, title) in parts.enumerated() {
            try tone(folder + "/\(i + 1) \(title).wav", seconds: seconds, frequency: frequency + Double(i) * 110)
        }
    }
}
