import Glibc
import LinuxSystem
import Testing

@Suite(.serialized) struct SleepTests {
    /// Sleeping until an instant never returns before it.
    @Test(arguments: [1_000_000, 20_000_000, 50_000_000] as [Int64])
    func sleepUntilIsNotEarly(ahead: Int64) {
        let deadline = monotonicNanoseconds() + ahead
        sleepUntilMonotonic(deadline)
        #expect(monotonicNanoseconds() >= deadline)
    }

    /// A relative sleep lasts at least its length; a deadline passed returns at once.
    @Test func aRelativeSleepLastsItsLength() {
        let start = monotonicNanoseconds()
        sleepMonotonic(nanoseconds: 20_000_000)
        #expect(monotonicNanoseconds() - start >= 20_000_000)
        let again = monotonicNanoseconds()
        sleepUntilMonotonic(again - 1_000_000_000)
        sleepMonotonic(nanoseconds: -5)
        #expect(monotonicNanoseconds() - again < 1_000_000_000)
    }

    /// Signals at the sleeping thread (a handler without SA_RESTART) do not cut it short.
    @Test func aSignalDoesNotCutTheSleepShort() throws {
        InterruptingSignal.install()
        let sleeper = Shared<pthread_t?>(nil)
        let slept = Shared<(deadline: Int64, woke: Int64)?>(nil)
        let thread = try SystemThread(name: "lsys-sleeper") {
            InterruptingSignal.unblock()
            sleeper.current = pthread_self()
            let deadline = monotonicNanoseconds() + 200_000_000
            sleepUntilMonotonic(deadline)
            slept.current = (deadline, monotonicNanoseconds())
        }
        while sleeper.current == nil { sleepMonotonic(nanoseconds: 1_000_000) }
        let before = InterruptingSignal.delivered
        for _ in 0..<3 {
            sleepMonotonic(nanoseconds: 30_000_000)
            pthread_kill(sleeper.current!, SIGUSR1)
        }
        thread.join()
        #expect(InterruptingSignal.delivered >= before + 3)
        let seen = try #require(slept.current)
        #expect(seen.woke >= seen.deadline)
    }
}
