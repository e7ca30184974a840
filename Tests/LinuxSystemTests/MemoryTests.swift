import Glibc
import LinuxSystem
import Testing

@Suite struct MemoryTests {
    /// Anonymous pages are absent until touched, present after; dropping them makes them
    /// absent again (pagemap's present bit, read from the kernel).
    @Test func pagesArePresentOnceTouchedAndGoneOnceDropped() throws {
        let page = Int(PageMap.pageSize)
        let length = 4 * page
        let base = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(base != MAP_FAILED)
        defer { munmap(base, length) }
        let start = UInt(bitPattern: base)
        let map = try PageMap()
        #expect(map.present(start..<(start + UInt(length))) == [0])
        base.storeBytes(of: 1, toByteOffset: 2 * page, as: UInt8.self)
        #expect(map.present(start..<(start + UInt(length))) == [0b100])
        #expect(MemoryLock.drop(UnsafeMutableRawBufferPointer(start: base, count: length)))
        #expect(map.present(start..<(start + UInt(length))) == [0])
    }

    /// mlock faults a range in at once; mlock2(ONFAULT) locks without faulting in.
    @Test func lockingFaultsInButLockingOnFaultDoesNot() throws {
        let page = Int(PageMap.pageSize)
        let length = 2 * page
        let map = try PageMap()
        for onFault in [false, true] {
            let base = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
            defer { munmap(base, length) }
            let bytes = UnsafeRawBufferPointer(start: base, count: length)
            if onFault { try MemoryLock.lockOnFault(bytes) } else { try MemoryLock.lock(bytes) }
            let start = UInt(bitPattern: base)
            #expect(map.present(start..<(start + UInt(length))) == [onFault ? 0 : 0b11])
            MemoryLock.unlock(bytes)
        }
    }
}
