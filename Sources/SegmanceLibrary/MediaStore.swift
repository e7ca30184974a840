import LinuxSystem
#if canImport(Glibc)
import Glibc
#endif
import SegmanceMedia

/// The library's PCM files: raw interleaved stereo Int16 (little-endian) at the library's
/// rate, one file per decoded source, named by a content hash (`<hex>.pcm`, see `MediaKey`).
///
/// Files are written under a temporary name, fsynced, then renamed to their name: a name
/// that exists always has complete content. The directory is fsynced by the importer once
/// per routine, before the rows that refer to the files are committed.
public struct MediaStore: Sendable {
    public let directory: String
    /// Bytes a media file never takes from its file system: the library's own saves during
    /// rehearsal (settings, loops, the resume point: SQLite's write-ahead log and pages) need
    /// them after an import filled the card. An import stops as the disk is full before that.
    public let reserve: Int64
    /// The reserve a library keeps unless told otherwise.
    public static let defaultReserve: Int64 = 2 << 20

    public init(directory: String, reserve: Int64 = MediaStore.defaultReserve) throws(SystemError) {
        self.directory = directory
        self.reserve = max(0, reserve)
        if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir", path: directory) }
    }

    public static let fileExtension = ".pcm"
    static let temporaryPrefix = "tmp-"
    /// Bytes per stored frame: two 16-bit channels.
    public static let bytesPerFrame: Int64 = 4

    /// Where the media named `hash` lives.
    public func path(of hash: String) -> String { directory + "/" + hash + Self.fileExtension }

    /// A new temporary file to decode into.
    public func makeWriter() throws(SystemError) -> MediaWriter {
        try MediaWriter(store: self)
    }

    /// Makes the renames into the store durable.
    public func sync() throws(SystemError) { try syncDirectory(directory) }

    /// Maps the media named `hash`, which must hold exactly `frames` frames.
    public func map(_ hash: String, frames: Int64) throws(SystemError) -> MappedPCM {
        try MappedPCM(path: path(of: hash), hash: hash, frames: frames)
    }

    /// The hash of every complete media file, and the names of leftover temporary files.
    public func contents() throws(SystemError) -> (media: Set<String>, temporary: [String]) {
        var media: Set<String> = []
        var temporary: [String] = []
        for name in try Directory(directory).names() {
            if name.hasSuffix(Self.fileExtension), Self.isHash(String(name.dropLast(Self.fileExtension.count))) {
                media.insert(String(name.dropLast(Self.fileExtension.count)))
            } else {
                temporary.append(name)
            }
        }
        return (media, temporary.sorted())
    }

    /// Deletes a file of the store by name (a media hash's file or a leftover).
    public func removeFile(named name: String) throws(SystemError) {
        let path = directory + "/" + name
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemError("unlink", path: path) }
    }

    /// Deletes the media named `hash`.
    public func remove(_ hash: String) throws(SystemError) {
        try removeFile(named: hash + Self.fileExtension)
    }

    /// The size of the media file named `hash`, nil when it does not exist.
    public func size(of hash: String) -> Int64? {
        var info = stat()
        return stat(path(of: hash), &info) == 0 ? Int64(info.st_size) : nil
    }

    static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

/// Decoded audio on its way into the store: written to a temporary file as it comes, then
/// `commit(as:)`ed under its name or `discard()`ed. A writer dropped without either deletes
/// its temporary file.
public final class MediaWriter: PCMSink {
    public let store: MediaStore
    public let temporaryPath: String
    private var fd: Int32
    public private(set) var frames: Int64 = 0
    private var finished = false
    /// Bytes written, and those whose writeback has been started.
    private var written: Int64 = 0
    private var writebackStarted: Int64 = 0
    /// The file's pages are sent to the disk every this many bytes as it is written, so that
    /// `commit`'s fsync waits only for the last of them (it came after the decoding, ~10 ms
    /// for a minute of audio).
    static let writebackBytes: Int64 = 1 << 20
    /// Checked before every chunk: a thrown error stops decoding (a cancelled import).
    public var checkpoint: () throws -> Void = {}
    /// Decoding progress, 0...1, for the import's progress display.
    public var onProgress: (Double) -> Void = { _ in }

    init(store: MediaStore) throws(SystemError) {
        self.store = store
        var random = SystemRandomNumberGenerator()
        let name = "\(MediaStore.temporaryPrefix)\(getpid())-\(String(random.next() as UInt64, radix: 16)).part"
        temporaryPath = store.directory + "/" + name
        fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError("open", path: temporaryPath) }
    }

    deinit { discard() }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try checkpoint()
        frames += Int64(samples.count / 2)
        #if _endian(big)
        let stored = samples.map(\.littleEndian)
        try stored.withUnsafeBytes { try writeAll($0) }
        #else
        try writeAll(UnsafeRawBufferPointer(samples))
        #endif
    }

    public func progress(sourceFrames: Int64, of total: Int64) {
        if total > 0 { onProgress(min(1, Double(sourceFrames) / Double(total))) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        if store.reserve > 0 {
            var fs = statvfs()
            if fstatvfs(fd, &fs) == 0, Int64(fs.f_bavail) * Int64(fs.f_frsize) < store.reserve + Int64(bytes.count) {
                var full = SystemError("write", path: temporaryPath, code: ENOSPC)
                full.note = "No space left on device (the last \(store.reserve >> 20) MB are kept for the library's saves)"
                throw full
            }
        }
        var offset = 0
        while offset < bytes.count {
            let n = retryingEINTR { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
            guard n > 0 else { throw SystemError("write", path: temporaryPath, code: n == 0 ? ENOSPC : errno) }
            offset += n
        }
        written += Int64(bytes.count)
        if written - writebackStarted >= Self.writebackBytes {
            // Only a head start for fsync: a failure here is fsync's to report.
            Writeback.start(fd, offset: writebackStarted, count: written - writebackStarted)
            writebackStarted = written
        }
    }

    /// Makes the file durable and names it `hash`. When the store already holds that
    /// content, the temporary file is dropped and the existing one kept: returns false.
    public func commit(as hash: String) throws(SystemError) -> Bool {
        precondition(!finished, "a media writer commits once")
        guard fsync(fd) == 0 else { throw SystemError("fsync", path: temporaryPath) }
        guard close(fd) == 0 else {
            fd = -1
            throw SystemError("close", path: temporaryPath)
        }
        fd = -1
        let final = store.path(of: hash)
        let exists = store.size(of: hash) == frames * MediaStore.bytesPerFrame
        if exists {
            unlink(temporaryPath)
        } else if rename(temporaryPath, final) != 0 {
            throw SystemError("rename", path: final)
        }
        finished = true
        return !exists
    }

    /// Throws the partial file away.
    public func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        if !finished {
            unlink(temporaryPath)
            finished = true
        }
    }
}

/// The name of a stick file's PCM in the store: the SHA-256 of a header naming the stored
/// format and the decoder's version, followed by the file's bytes.
///
/// Hashing the source rather than the decoded PCM means one hash per file, over the smaller
/// of the two (an MP3 is a tenth of its PCM), computed before decoding: a file the library
/// already holds is recognised without decoding it again, which makes re-inserting a stick
/// cheap. SHA-256 because the store is content-addressed: a collision would silently play the
/// wrong music, and at ~200 MB/s the hash costs less than reading the stick.
public enum MediaKey {
    /// Bump when decoding or conversion changes what a file decodes to.
    public static let version = "segmance-pcm-1"

    /// The key of the file at `path` decoded at `rate`.
    public static func of(file path: String, rate: Int) throws(SystemError) -> String {
        var hasher = SHA256()
        Array("\(version) s16le stereo \(rate) Hz\n".utf8).withUnsafeBytes { hasher.update($0) }
        try forEachBlock(ofFile: path) { hasher.update($0) }
        return hasher.finalize().hex
    }
}
