#if canImport(Glibc)
import Glibc
#endif

/// Scratch memory for a warm-up, mapped for it and unmapped after (`mmap`/`munmap`), not
/// taken from the heap: with the daemon's memory locked on fault, heap memory once touched
/// stays resident after it is freed (glibc cannot give locked pages back), so a warm-up's
/// temporary buffers would count against the memory budget for good.
public enum ScratchPages {
    /// `count` zeroed values of `type` in pages of their own; nil when they cannot be
    /// mapped. Give them back with `unmap`.
    public static func map<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T>? {
        guard let p = mmap(nil, byteCount(T.self, count), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              p != MAP_FAILED else { return nil }
        return p.bindMemory(to: type, capacity: count)
    }

    /// Unmaps what `map` returned for the same `count`.
    public static func unmap<T>(_ pointer: UnsafeMutablePointer<T>, count: Int) {
        munmap(UnsafeMutableRawPointer(pointer), byteCount(T.self, count))
    }

    static func byteCount<T>(_ type: T.Type, _ count: Int) -> Int { max(1, count * MemoryLayout<T>.stride) }
}
