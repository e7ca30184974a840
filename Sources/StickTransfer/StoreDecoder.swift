import AudioDecoding
import BeatTracking
import SegmanceCore
import SegmanceLibrary
import SegmanceStick
#if canImport(Glibc)
import Glibc
#endif

/// Decodes a routine's audio files into the media store, for one routine of an import.
/// A file the store already holds (same `MediaKey`) is not decoded again. While a file is
/// decoded, its beat is detected on another thread (`BeatTappedSink`), for the parts that
/// are the whole file.
final class StoreDecoder: StickAudioDecoding {
    let library: Library
    let root: String
    let stick: StickPresence
    let progress: ProgressReporter
    let checkpoint: () throws -> Void
    let willDecode: ((String) -> Void)?
    let detector: BeatDetector
    private let decoder: SniffingDecoder
    private var results: [String: Result<DecodedAudio, AudioDecodeError>] = [:]
    private var stored: [String: StoredMedia] = [:]
    /// What the analysis beside the decoding found, by media hash, and the frames it analysed.
    private var analyses: [String: (frames: Range<Int>, detection: BeatDetection)] = [:]
    /// Files this routine put into the store: deleted again if the routine is abandoned.
    private var created: [String] = []

    init(library: Library, root: String, stick: StickPresence, progress: ProgressReporter,
         detector: BeatDetector, willDecode: ((String) -> Void)? = nil, checkpoint: @escaping () throws -> Void) {
        self.library = library
        self.root = root
        self.stick = stick
        self.progress = progress
        self.checkpoint = checkpoint
        self.willDecode = willDecode
        self.detector = detector
        self.decoder = SniffingDecoder(outputRate: library.sampleRate)
    }

    var outputRate: Int { library.sampleRate }

    func decode(_ file: StickAudioFile) throws -> Result<DecodedAudio, AudioDecodeError> {
        if let known = results[file.real] { return known }
        try checkpoint()
        willDecode?(file.shown)
        let size = fileSize(file.real)
        let result: Result<DecodedAudio, AudioDecodeError>
        let key: String
        do {
            key = try MediaKey.of(file: file.real, rate: library.sampleRate)
        } catch {
            // A file that was there at the scan and no longer reads: the stick is going
            // away (the routine is abandoned whole), or this file is damaged (its part fails).
            if stick.vanishes(afterReadError: error.code, on: file.real) { throw Importer.Stop.stickGone }
            return .failure(AudioDecodeError(path: file.real, reason: .unreadable(error.message)))
        }
        if let known = try library.media(named: key) {
            stored[key] = known
            result = .success(DecodedAudio(reference: AudioReference(key), frames: known.frames))
        } else {
            result = try decodeIntoStore(file, size: size, key: key)
        }
        progress.fileDone(bytes: size)
        results[file.real] = result
        return result
    }

    private func decodeIntoStore(_ file: StickAudioFile, size: Int64, key: String) throws
        -> Result<DecodedAudio, AudioDecodeError> {
        let writer = try library.store.makeWriter()
        writer.checkpoint = checkpoint
        writer.onProgress = { [progress] fraction in progress.file(bytes: size, fraction: fraction) }
        let sink = BeatTappedSink(writer: writer, detector: detector)
        let frames: Int64
        do {
            frames = try decoder.decode(file.real, into: sink)
        } catch let error as AudioDecodeError {
            sink.analysis?.cancel()
            writer.discard()
            // A file that was there at the scan and no longer reads: the stick is going away.
            guard stick.isPresent(file.real) else { throw Importer.Stop.stickGone }
            return .failure(error)
        } catch {
            sink.analysis?.cancel()
            throw error
        }
        // The file is made durable while the analysis finishes.
        let committed: Bool
        do {
            committed = try writer.commit(as: key)
        } catch {
            sink.analysis?.cancel()
            throw error
        }
        if committed { created.append(key) }
        stored[key] = StoredMedia(hash: key, frames: frames)
        if let analysis = sink.analysis, let outcome = analysis.finish(), case .success(let found) = outcome.detection {
            let start = analysis.excerpt.lowerBound
            analyses[key] = (start..<(start + outcome.frames), found)
        }
        return .success(DecodedAudio(reference: AudioReference(key), frames: frames))
    }

    /// The beat detected while the media of `part` was decoded, when it analysed exactly
    /// the frames `detector` analyses for the part (`BeatDetector.excerpt`): the part starts
    /// at the file's start and the length the file announced gave the excerpt of the length
    /// decoded. Then it is what detecting the stored part finds, frame for frame.
    func detection(for part: Part) -> BeatDetection? {
        guard let early = analyses[part.audio.id], (part.range?.lowerBound ?? 0) == 0,
              early.frames == detector.excerpt(ofFrames: Int(part.length)) else { return nil }
        return early.detection
    }

    /// The frames of media `hash` decoded (or found) for this routine.
    func frames(of hash: String) -> Int64? { stored[hash]?.frames }

    /// The media the routine's parts use.
    func media(of routine: Routine) -> [StoredMedia] {
        var seen: Set<String> = []
        return routine.parts.compactMap { part in
            seen.insert(part.audio.id).inserted ? stored[part.audio.id] : nil
        }
    }

    /// Makes the renames into the store durable (before the rows are committed).
    func makeDurable() throws { try library.store.sync() }

    /// The routine will not be committed: the files it added to the store go again.
    func abandon() {
        for hash in created { try? library.store.remove(hash) }
        created.removeAll()
    }

    private func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
