import CLinuxSystem

/// The C heap (glibc's malloc), as a process that locks its memory needs it.
public enum Heap {
    /// Lets every thread allocate from the one main arena (`mallopt(M_ARENA_MAX, 1)`).
    /// Each further arena reserves 64 MB of address space, and `mlockall(MCL_FUTURE)`
    /// counts a reservation in full against RLIMIT_MEMLOCK: two of them took half of the
    /// service's 256 MB, and an allocation past the limit fails. Call it before the second
    /// thread starts: arenas made before stay.
    public static func useOneArena() {
        _ = segmance_limit_arenas(1)
    }
}
