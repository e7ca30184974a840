#if canImport(Glibc)
import LinuxSystem
import Glibc
#endif

/// A media file mapped read-only into memory: what the render side reads during playback.
///
/// The mapping stays valid for the object's lifetime, even when the file is deleted from
/// the store meanwhile (the pages stay with the inode). Only touched pages count toward
/// the resident set: `prefault` brings a region in before the render side needs it,
/// `release` lets go of a region (the pages stay in the page cache, so coming back is a
/// minor fault, not a read). Both are for the control side, never the render thread.
public final class MappedPCM: @unchecked Sendable {
    public let hash: String
    public let path: String
    /// Stereo frames in the file.
    public let frames: Int64
    /// The first sample; `frames * 2` interleaved samples follow.
    public let base: UnsafePointer<Int16>
    private let raw: UnsafeMutableRawPointer
    private let byteCount: Int
    /// Sum of touched bytes, kept so the compiler cannot drop the touching.
    public private(set) var touchSum: UInt64 = 0

    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Frames in one page of memory.
    var framesPerPage: Int64 { Int64(Self.pageSize) / MediaStore.bytesPerFrame }

    /// Maps `path`, which must hold exactly `frames` stereo 16-bit frames.
    public init(path: String, hash: String, frames: Int64) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", path: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("fstat", path: path) }
        let expected = frames * MediaStore.bytesPerFrame
        guard frames > 0, Int64(info.st_size) == expected else {
            throw SystemError("mmap", path: path, code: EINVAL)
                .withNote("holds \(info.st_size) bytes, the library expects \(expected)")
        }
        guard let mapped = mmap(nil, Int(expected), PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw SystemError("mmap", path: path)
        }
        self.hash = hash
        self.path = path
        self.frames = frames
        self.raw = mapped
        self.byteCount = Int(expected)
        self.base = UnsafePointer(mapped.assumingMemoryBound(to: Int16.self))
    }

    deinit { munmap(raw, byteCount) }

    /// Page-aligned byte range covering `range` (frames), clamped to the file. `inner`
    /// rounds inward (only pages wholly inside), otherwise outward.
    private func pages(_ range: Range<Int64>, inner: Bool) -> Range<Int> {
        let lo = Int(max(0, min(range.lowerBound, frames)) * MediaStore.bytesPerFrame)
        let hi = Int(max(0, min(range.upperBound, frames)) * MediaStore.bytesPerFrame)
        let page = Self.pageSize
        let start = inner ? (lo + page - 1) / page * page : lo / page * page
        let end = inner ? (hi == byteCount ? hi : hi / page * page) : min(byteCount, (hi + page - 1) / page * page)
        return start < end ? start..<end : start..<start
    }

    /// Brings the frames of `range` into memory now and keeps them there: `mlock` faults
    /// every page in and pins it, so the render side never waits for the disk. Where the
    /// process may not lock more memory (RLIMIT_MEMLOCK), it reads ahead and touches every
    /// page instead. True when the range is locked (it stays resident until released).
    @discardableResult
    public func prefault(_ range: Range<Int64>) -> Bool {
        let bytes = pages(range, inner: false)
        guard !bytes.isEmpty else { return true }
        let region = UnsafeRawBufferPointer(start: raw + bytes.lowerBound, count: bytes.count)
        if (try? MemoryLock.lock(region)) != nil { return true }
        madvise(raw + bytes.lowerBound, bytes.count, MADV_WILLNEED)
        var sum: UInt64 = 0
        var offset = bytes.lowerBound
        let p = UnsafeRawPointer(raw)
        while offset < bytes.upperBound {
            sum &+= UInt64(p.load(fromByteOffset: offset, as: UInt8.self))
            offset += Self.pageSize
        }
        touchSum &+= sum
        return false
    }

    /// Drops the frames of `range` from this process's resident set (pages wholly inside;
    /// the page cache keeps them). Locked pages are unlocked first: `MADV_DONTNEED` refuses
    /// locked memory, and the engine locks the whole process on fault
    /// (`mlockall(MCL_FUTURE | MCL_ONFAULT)`), which would otherwise pin every page ever played.
    public func release(_ range: Range<Int64>) {
        let bytes = pages(range, inner: true)
        guard !bytes.isEmpty else { return }
        MemoryLock.drop(UnsafeMutableRawBufferPointer(start: raw + bytes.lowerBound, count: bytes.count))
    }
}
