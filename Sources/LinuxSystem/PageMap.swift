#if canImport(Glibc)
import Glibc
#endif

/// Which pages of this process are present in memory (`/proc/self/pagemap`, bit 63 of each
/// page's entry). Closed when this object goes.
public final class PageMap {
    /// The size of a page in bytes.
    public static let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))

    private let fileDescriptor: Int32

    /// Opens `path` (`/proc/self/pagemap`).
    public init(path: String = "/proc/self/pagemap") throws(SystemError) {
        fileDescriptor = try syscall("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
    }

    deinit { close(fileDescriptor) }

    /// One bit per page of the page-aligned address `range`, set when the page is present;
    /// nil when the kernel did not say.
    public func present(_ range: Range<UInt>) -> [UInt64]? {
        let page = Self.pageSize
        let pages = Int((range.upperBound - range.lowerBound) / page)
        var bits = [UInt64](repeating: 0, count: (pages + 63) / 64)
        var entries = [UInt64](repeating: 0, count: min(pages, 4096))
        var done = 0
        while done < pages {
            let count = min(entries.count, pages - done)
            let offset = off_t((range.lowerBound / page + UInt(done)) * 8)
            let n = entries.withUnsafeMutableBytes { b in
                retryingEINTR { pread(fileDescriptor, b.baseAddress, count * 8, offset) }
            }
            guard n == count * 8 else { return nil }
            for i in 0..<count where entries[i] & (1 << 63) != 0 {
                bits[(done + i) / 64] |= 1 << UInt64((done + i) % 64)
            }
            done += count
        }
        return bits
    }
}
