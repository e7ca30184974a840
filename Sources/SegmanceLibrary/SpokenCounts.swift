import LinuxSystem
import SHA256Hash
import Speech
#if canImport(Glibc)
import Glibc
#endif

/// Spoken counts could not be used as they are: a cache file that is not what it says
/// (it is spoken again), one that cannot be written (the words still play), or speech
/// that cannot be made (the counts fall back to ticks).
public struct SpokenCountError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The cache file is damaged or not of this voice, text and rate.
        case corrupt(String)
        /// The cache file cannot be written (the word is used from memory).
        case unwritable(String)
        /// The word is not cached and cannot be spoken.
        case speech(SpeechError)
    }
    public var path: String
    public var reason: Reason

    public init(path: String, _ reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .corrupt(let why): "spoken counts: \(path): not a valid cached word (\(why))"
        case .unwritable(let why): "spoken counts: \(path): cannot be cached (\(why))"
        case .speech(let error): "spoken counts: \(path) is not cached and the \(error)"
        }
    }
}

/// The words of spoken counts ("one" … "twenty"), each rendered once with espeak-ng at the
/// output rate and cached as a file in the library folder (`spoken-counts/`), keyed by the
/// voice, the text and the rate. A cache file is written atomically (a temporary file,
/// fsync, rename) and checked when read (magic, key, sizes, SHA-256, every sample finite
/// and within full scale): a damaged one is spoken again, never trusted. Whoever loads the
/// same library hears the same samples (the box, `segmance sim --library`); espeak-ng's
/// output is deterministic too, so a fresh library speaks the same bytes.
public struct SpokenCounts: Sendable {
    /// The numbers spoken: counts in an eight are 1...8, a countdown in seconds is at most 20.
    public static let words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                               "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                               "eighteen", "nineteen", "twenty"]
    /// The cache's folder inside a library.
    public static let folder = "spoken-counts"
    static let magic = Array("SGMCOUNT".utf8)
    static let version: UInt32 = 1
    /// Bytes a cache file may have: the longest word at 192 kHz, with room for the header.
    static let maxFileBytes = Int(CountSound.maxSeconds * 192_000) * 4 + 4096

    /// The cache folder.
    public let directory: String
    public let sampleRate: Int
    public let speech: EspeakSpeech

    /// The counts of the library in `library`, at its rate.
    public init(library: String, sampleRate: Int, speech: EspeakSpeech = EspeakSpeech()) {
        directory = library + "/" + Self.folder
        self.sampleRate = sampleRate
        self.speech = speech
    }

    /// The sounds, and what it took to get them.
    public struct Loaded: Sendable {
        /// `sounds[n-1]` is the number n spoken, mono at the output rate, its onset first.
        public var sounds: [[Float]]
        /// Words spoken now (the others came from the cache).
        public var spoken: Int
        /// Cache files found damaged (spoken again) or not written.
        public var problems: [SpokenCountError]
    }

    /// Every word: from its cache file when that is valid, else spoken and cached. Throws
    /// (naming the first word) when one is neither cached nor can be spoken.
    public func load() throws(SpokenCountError) -> Loaded {
        var loaded = Loaded(sounds: [], spoken: 0, problems: [])
        var madeFolder = false
        for text in Self.words {
            let path = path(of: text)
            do {
                if let sound = try read(text) {
                    loaded.sounds.append(sound)
                    continue
                }
            } catch {
                loaded.problems.append(error)
            }
            let sound: [Float]
            do {
                sound = try speech.speak(text, sampleRate: sampleRate)
            } catch {
                throw SpokenCountError(path: path, .speech(error))
            }
            loaded.sounds.append(sound)
            loaded.spoken += 1
            if !madeFolder {
                madeFolder = true
                if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                    let reason = "mkdir: \(SystemError.text(errno))"
                    loaded.problems.append(SpokenCountError(path: directory, .unwritable(reason)))
                }
            }
            do {
                try write(sound, text)
            } catch {
                loaded.problems.append(error)
            }
        }
        return loaded
    }

    /// The cache file of `text` (a text other than letters, by the digest of it: a title).
    public func path(of text: String) -> String {
        let voice = String(speech.identity.map { $0.isLetter || $0.isNumber ? $0 : "-" })
        return "\(directory)/\(voice)-\(sampleRate)-\(Self.fileName(text)).f32"
    }

    /// `text` as a file name: itself when it is ASCII letters, else "t" and the digest of it.
    static func fileName(_ text: String) -> String {
        text.allSatisfy { $0.isASCII && $0.isLetter } ? text : "t" + String(SHA256.hex(Array(text.utf8)).prefix(32))
    }

    /// `text` spoken (an announcement: a class set's next title), from its cache file when
    /// that is valid, else spoken now and cached (a cache that cannot be written is not a failure).
    public func sound(_ text: String) throws(SpokenCountError) -> [Float] {
        if let cached = try? read(text) { return cached }
        let sound: [Float]
        do {
            sound = try speech.speak(text, sampleRate: sampleRate)
        } catch {
            throw SpokenCountError(path: path(of: text), .speech(error))
        }
        mkdir(directory, 0o755)
        try? write(sound, text)
        return sound
    }

    /// What a file's samples are: the voice, the rate and the text.
    func key(_ text: String) -> [UInt8] { Array("\(speech.identity) \(sampleRate) Hz \(text)".utf8) }

    /// The cached sound of `text`; nil when there is no cache file.
    public func read(_ text: String) throws(SpokenCountError) -> [Float]? {
        let path = path(of: text)
        // Not following a link, and not waiting on a FIFO: whatever is there, a regular file or a refusal.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SpokenCountError(path: path, .corrupt("open: \(SystemError.text(errno))"))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw SpokenCountError(path: path, .corrupt("not a regular file"))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = retryingEINTR { Glibc.read(fd, &chunk, chunk.count) }
            if n < 0 { throw SpokenCountError(path: path, .corrupt("read: \(SystemError.text(errno))")) }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > Self.maxFileBytes {
                throw SpokenCountError(path: path, .corrupt("over \(Self.maxFileBytes) bytes"))
            }
        }
        return try decode(bytes, text: text, path: path)
    }

    func decode(_ bytes: [UInt8], text: String, path: String) throws(SpokenCountError) -> [Float] {
        func bad(_ why: String) -> SpokenCountError { SpokenCountError(path: path, .corrupt(why)) }
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        let key = key(text)
        let header = Self.magic.count + 16 + key.count + 32
        guard bytes.count >= header, Array(bytes[0..<8]) == Self.magic else {
            throw bad("no header (\(bytes.count) bytes)")
        }
        guard u32(8) == Self.version else { throw bad("version \(u32(8)), not \(Self.version)") }
        guard u32(12) == sampleRate else { throw bad("\(u32(12)) Hz, not \(sampleRate)") }
        let frames = u32(16)
        guard u32(20) == key.count, Array(bytes[24..<(24 + key.count)]) == key else {
            throw bad("not the word \"\(text)\" of \(speech.identity)")
        }
        guard frames >= 1, frames <= Int(CountSound.maxSeconds * Double(sampleRate)) else {
            throw bad("\(frames) frames")
        }
        guard bytes.count == header + frames * 4 else { throw bad("\(bytes.count) bytes for \(frames) frames") }
        let digestAt = 24 + key.count
        let payload = bytes[(digestAt + 32)...]
        guard Array(bytes[digestAt..<(digestAt + 32)]) == Self.digest(key: key, payload: payload) else {
            throw bad("its SHA-256 does not match")
        }
        var sound = [Float](repeating: 0, count: frames)
        var i = payload.startIndex
        for k in 0..<frames {
            let bits = UInt32(payload[i]) | UInt32(payload[i + 1]) << 8 | UInt32(payload[i + 2]) << 16
                | UInt32(payload[i + 3]) << 24
            let x = Float(bitPattern: bits)
            guard x.isFinite, abs(x) <= 1 else { throw bad("sample \(k) is \(x)") }
            sound[k] = x
            i += 4
        }
        guard abs(sound[0]) >= CountSound.onsetThreshold else { throw bad("it does not start with its onset") }
        return sound
    }

    static func digest(key: [UInt8], payload: ArraySlice<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        key.withUnsafeBytes { hasher.update($0) }
        payload.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize().bytes
    }

    /// The bytes of `text`'s cache file holding `sound`.
    func encode(_ sound: [Float], _ text: String) -> [UInt8] {
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let key = key(text)
        var payload: [UInt8] = []
        payload.reserveCapacity(sound.count * 4)
        for x in sound { payload += u32(Int(x.bitPattern)) }
        return Self.magic + u32(Int(Self.version)) + u32(sampleRate) + u32(sound.count) + u32(key.count) + key
            + Self.digest(key: key, payload: payload[...]) + payload
    }

    /// Writes the cache file of `text` atomically: a temporary file, fsync, rename, fsync of the folder.
    public func write(_ sound: [Float], _ text: String) throws(SpokenCountError) {
        let path = path(of: text)
        let temporary = "\(directory)/.\(Self.fileName(text))-\(getpid()).tmp"
        func failed(_ call: String) -> SpokenCountError {
            SpokenCountError(path: path, .unwritable("\(call): \(SystemError.text(errno))"))
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failed("open") }
        let bytes = encode(sound, text)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                retryingEINTR { Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            }
            guard n > 0 else {
                let error = failed("write")
                close(fd)
                unlink(temporary)
                throw error
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            let error = failed("fsync")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failed("rename")
            unlink(temporary)
            throw error
        }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }
}
