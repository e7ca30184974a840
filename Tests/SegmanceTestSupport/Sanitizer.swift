import Glibc

/// Whether this test binary (and so every binary built with it) runs under a sanitizer:
/// their runtimes define these symbols. Memory and timing figures mean nothing under one.
public enum Sanitizer {
    /// ThreadSanitizer or AddressSanitizer is linked in.
    public static let active = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
        || dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
}
