import LinuxSystem
import Foundation
import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// What stays resident while a long part plays: the window the render side is about to read,
/// measured in /proc/self/smaps, not the whole mapped file.
@Suite struct ResidencyTests {
    let temp = TempDirs()
    static let rate = 48_000
    let window = PlaybackResidency.Window(sampleRate: rate)

    @Test func theKeptRangesFollowTheHeadAndTheLoop() {
        let s = Int64(Self.rate)
        let length = 180 * s
        #expect(PlaybackResidency.keep(position: 0, length: length, loop: nil, window: window) == [0..<(8 * s)])
        #expect(PlaybackResidency.keep(position: 60 * s, length: length, loop: nil, window: window)
                == [(59 * s)..<(68 * s)])
        #expect(PlaybackResidency.keep(position: 178 * s, length: length, loop: nil, window: window)
                == [(177 * s)..<length])
        // A short loop is kept whole, beside the head's window.
        #expect(PlaybackResidency.keep(position: 100 * s, length: length, loop: (20 * s)..<(32 * s), window: window)
                == [(20 * s)..<(32 * s), (99 * s)..<(108 * s)])
        // A long loop: only its start, where playback wraps to.
        #expect(PlaybackResidency.keep(position: 100 * s, length: length, loop: (10 * s)..<(110 * s), window: window)
                == [(10 * s)..<(18 * s), (99 * s)..<(108 * s)])
        // Overlaps merge.
        #expect(PlaybackResidency.keep(position: 25 * s, length: length, loop: (20 * s)..<(32 * s), window: window)
                == [(20 * s)..<(33 * s)])
        // Within a loop the window stops a second past its end, where playback wraps.
        #expect(PlaybackResidency.keep(position: 30 * s, length: length, loop: (20 * s)..<(32 * s), window: window)
                == [(20 * s)..<(33 * s)])
        // Before a loop too; past its end, the whole window.
        #expect(PlaybackResidency.keep(position: 5 * s, length: length, loop: (10 * s)..<(12 * s), window: window)
                == [(4 * s)..<(13 * s)])
        #expect(PlaybackResidency.keep(position: 40 * s, length: length, loop: (20 * s)..<(32 * s), window: window)
                == [(20 * s)..<(32 * s), (39 * s)..<(48 * s)])
    }

    /// A step of the window locks only what entered it: the kept ranges less those locked
    /// at the step before.
    @Test(arguments: [
        ([0..<100], [Range<Int64>](), [0..<100]),
        ([50..<150], [0..<100], [100..<150]),
        ([0..<100], [0..<100], []),
        ([10..<20, 90..<200], [0..<15, 95..<100, 150..<300], [15..<20, 90..<95, 100..<150]),
        ([0..<10], [20..<30], [0..<10]),
    ] as [([Range<Int64>], [Range<Int64>], [Range<Int64>])])
    func aStepLocksOnlyWhatEnteredTheWindow(keep: [Range<Int64>], held: [Range<Int64>], expected: [Range<Int64>]) {
        #expect(PlaybackResidency.subtract(held, from: keep) == expected)
    }

    /// What a change of the kept ranges gives back: everything but them on a load, a jump or
    /// a loop (no `before`); on a step of the window only what left it, with a page's margin
    /// outside what stays kept (a page that straddled the old edge is wholly outside now).
    @Test(arguments: [
        (nil, [100..<200], [0..<100, 200..<1000]),
        ([100..<200], [150..<250], [90..<150]),
        ([100..<200], [100..<200], []),
        ([150..<250], [100..<200], [200..<260]),
        ([0..<20, 100..<200], [0..<20, 150..<250], [90..<150]),
        ([0..<20, 100..<200], [100..<200], [0..<30]),
        ([950..<1000], [990..<1000], [940..<990]),
    ] as [([Range<Int64>]?, [Range<Int64>], [Range<Int64>])])
    func aStepGivesBackOnlyWhatLeftTheWindow(before: [Range<Int64>]?, keep: [Range<Int64>],
                                             expected: [Range<Int64>]) {
        #expect(PlaybackResidency.released(before: before, keep: keep, total: 1000, margin: 10) == expected)
    }

    /// Pages read outside the window stay until the next load, jump or loop, which gives back
    /// everything not kept; the steps between give back only what left the window, so that
    /// a step costs syscalls over a second of audio, not over the whole file. Forty steps
    /// leave the resident size as it was: the window's pages straddling its old edge go too.
    @Test func stepsGiveBackWhatLeftAndAJumpCleansUp() throws {
        let store = try MediaStore(directory: try temp.make("residency") + "/media")
        let s = Int64(Self.rate)
        let writer = try store.makeWriter()
        let chunk = TestFiles.noise16(frames: Self.rate, seed: 7)
        for _ in 0..<60 { try chunk.withUnsafeBufferPointer { try writer.write($0) } }
        let hash = String(repeating: "c", count: 64)
        _ = try writer.commit(as: hash)
        let mapped = try store.map(hash, frames: 60 * s)
        let residency = PlaybackResidency(window: window)
        residency.load(.init(media: mapped, start: 0, length: 60 * s), at: 10 * s)
        let held = try #require(Smaps.residentKB(of: UnsafeRawPointer(mapped.base)))
        // 9 s around the head: 1688 KB.
        #expect(held >= 1680 && held <= 1700, "\(held) KB")
        // 2 s read at 2-4 s, away from the window: 375 KB, more with the kernel's fault-around.
        var sum: Int64 = 0
        for sample in stride(from: Int(2 * s) * 2, to: Int(4 * s) * 2, by: 2048) { sum &+= Int64(mapped.base[sample]) }
        let stray = try #require(Smaps.residentKB(of: UnsafeRawPointer(mapped.base))) - held
        #expect(stray >= 370 && stray <= 500, "\(stray) KB read (sum \(sum))")
        for second in 11...50 { residency.advance(to: Int64(second) * s) }
        let stepped = try #require(Smaps.residentKB(of: UnsafeRawPointer(mapped.base)))
        #expect(abs(stepped - (held + stray)) <= 16, "\(stepped) KB after 40 steps, \(held + stray) KB before")
        residency.jump(to: 50 * s)
        let jumped = try #require(Smaps.residentKB(of: UnsafeRawPointer(mapped.base)))
        #expect(abs(jumped - held) <= 16, "\(jumped) KB after the jump")
    }

    /// Plays a 3-minute part (34 MB of PCM) through, reading every frame as the render side
    /// would. Without the residency manager the whole file ends up resident; with it, a
    /// window of seconds — also when the mapping is locked on fault, as the daemon's engine
    /// locks the whole process (`mlockall(MCL_FUTURE | MCL_ONFAULT)`; here `mlock2` on the
    /// mapping alone, so the rest of the test process is left as it is).
    @Test(arguments: [false, true])
    func aThreeMinutePartStaysAWindowOfMegabytes(lockedOnFault: Bool) throws {
        let store = try MediaStore(directory: try temp.make("residency") + "/media")
        let frames = Int64(180 * Self.rate)
        let writer = try store.makeWriter()
        let chunk = TestFiles.noise16(frames: Self.rate, seed: 9)
        for _ in 0..<180 { try chunk.withUnsafeBufferPointer { try writer.write($0) } }
        let hash = String(repeating: "a", count: 64)
        _ = try writer.commit(as: hash)

        func play(_ mapped: MappedPCM, residency: PlaybackResidency?) -> (peakKB: Int, sum: Int64) {
            residency?.load(.init(media: mapped, start: 0, length: frames), at: 0)
            var peak = 0
            var sum: Int64 = 0
            let period = 128
            var position: Int64 = 0
            while position < frames {
                let n = Int(min(Int64(period), frames - position))
                for i in 0..<(n * 2) { sum &+= Int64(mapped.base[Int(position) * 2 + i]) }
                position += Int64(n)
                residency?.advance(to: position)
                if position % Int64(10 * Self.rate) < Int64(period) {
                    peak = max(peak, Smaps.residentKB(of: UnsafeRawPointer(mapped.base)) ?? -1)
                }
            }
            return (peak, sum)
        }
        func map() throws -> MappedPCM {
            let mapped = try store.map(hash, frames: frames)
            if lockedOnFault {
                try MemoryLock.lockOnFault(UnsafeRawBufferPointer(start: mapped.base, count: Int(frames) * 4))
            }
            return mapped
        }
        let bare = play(try map(), residency: nil)
        let managed = play(try map(), residency: PlaybackResidency(window: window))
        #expect(bare.sum == managed.sum)
        let fileKB = Int(frames * 4 / 1024)
        // Behind + ahead + one step = 10 s = 1875 KB, plus page rounding.
        print("residency: 3-minute part (\(fileKB) KB mapped\(lockedOnFault ? ", locked on fault" : "")): peak resident \(bare.peakKB) KB reading bare, \(managed.peakKB) KB with the window")
        #expect(bare.peakKB > fileKB * 9 / 10, "the unmanaged mapping becomes resident as it is read")
        #expect(managed.peakKB > 0 && managed.peakKB <= 2000)
    }

    @Test func aLoopRegionStaysResidentWhileTheHeadIsElsewhere() throws {
        let store = try MediaStore(directory: try temp.make("residency") + "/media")
        let s = Int64(Self.rate)
        let writer = try store.makeWriter()
        let chunk = TestFiles.noise16(frames: Self.rate, seed: 5)
        for _ in 0..<60 { try chunk.withUnsafeBufferPointer { try writer.write($0) } }
        _ = try writer.commit(as: String(repeating: "b", count: 64))
        let mapped = try store.map(String(repeating: "b", count: 64), frames: 60 * s)
        let residency = PlaybackResidency(window: window)
        residency.load(.init(media: mapped, start: 0, length: 60 * s), at: 40 * s)
        residency.setLoop((20 * s)..<(30 * s))
        // 10 s of loop + 9 s around the head: ~3.6 MB of 11 MB.
        let kb = try #require(Smaps.residentKB(of: UnsafeRawPointer(mapped.base)))
        #expect(kb >= 3500 && kb <= 3700, "\(kb) KB")
        // A part queued to follow, cut from the same file, adds its first 4 s.
        residency.setNext(.init(media: mapped, start: 50 * s, length: 10 * s))
        let withNext = try #require(Smaps.residentKB(of: UnsafeRawPointer(mapped.base)))
        #expect(withNext >= kb + 700 && withNext <= kb + 800, "\(withNext) KB")
        residency.setLoop(nil)
        residency.setNext(nil)
        let bare = try #require(Smaps.residentKB(of: UnsafeRawPointer(mapped.base)))
        #expect(bare <= 1700, "\(bare) KB")
    }
}

/// The resident size of one mapping, from /proc/self/smaps: the sum over every VMA of the
/// file mapped at `address` (locking part of a mapping splits it into several).
enum Smaps {
    static func residentKB(of address: UnsafeRawPointer) -> Int? {
        // procfs files report size 0: read them to the end rather than by their size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let target = UInt(bitPattern: address)
        var areas: [(range: Range<UInt>, path: Substring, rss: Int)] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let dash = fields.first?.firstIndex(of: "-"), fields.count >= 5,
               let lo = UInt(fields[0][..<dash], radix: 16),
               let hi = UInt(fields[0][fields[0].index(after: dash)...], radix: 16) {
                areas.append((lo..<hi, fields.count > 5 ? fields[5] : "", 0))
            } else if line.hasPrefix("Rss:"), !areas.isEmpty, fields.count >= 2, let kb = Int(fields[1]) {
                areas[areas.count - 1].rss = kb
            }
        }
        guard let home = areas.first(where: { $0.range.contains(target) }), !home.path.isEmpty else { return nil }
        return areas.filter { $0.path == home.path }.reduce(0) { $0 + $1.rss }
    }
}
