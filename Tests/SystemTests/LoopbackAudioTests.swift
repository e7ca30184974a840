import ALSA
import Foundation
import Testing

extension SystemTests {
    /// The ALSA wrapper on the snd-aloop card: what is played to hw:Loopback,0,0 comes back
    /// from hw:Loopback,1,0 sample for sample, paced by the kernel's timer like a sound card.
    @Suite(.tags(.system)) struct LoopbackAudio {
        static let playback = "hw:Loopback,0,0"
        static let capture = "hw:Loopback,1,0"
        // Large periods: under TCG the VM can stall for tens of ms; this test is about the
        // data path, not latency.
        static let configuration = PCMConfiguration(format: .s16LE, channels: 2, rate: 48_000,
                                                    periodFrames: 1024, periodCount: 8)

        /// Pseudo-random stereo noise: every frame differs from its neighbours, so a
        /// dropped, repeated or shifted frame cannot go unnoticed.
        static func signal(frames: Int) -> [Float] {
            var seed: UInt32 = 0x5E6_3A1C
            return (0..<frames * 2).map { _ in
                seed = seed &* 1_664_525 &+ 1_013_904_223
                return Float(Int32(bitPattern: seed) >> 8) / Float(1 << 23) * 0.5 + 0.25
            }
        }

        /// Reads `frames` frames from the capture device on its own thread.
        final class Recorder: @unchecked Sendable {
            let device: PCMDevice
            let frames: Int
            private(set) var samples: [Int16]
            private(set) var failure: String?
            let finished = DispatchSemaphore(value: 0)

            init(device: PCMDevice, frames: Int) {
                self.device = device
                self.frames = frames
                self.samples = [Int16](repeating: 0, count: frames * 2)
            }

            func run() {
                var done = 0
                defer { finished.signal() }
                samples.withUnsafeMutableBytes { bytes in
                    while done < frames {
                        do {
                            done += try device.readInterleaved(into: bytes.baseAddress! + done * 4,
                                                               frames: min(1024, frames - done))
                        } catch {
                            failure = "\(error)"
                            return
                        }
                    }
                }
            }
        }

        /// Where `captured` (from the first sample of the signal on) departs from `expected`,
        /// said in frames, with what is there instead; nil when it carries all of it unchanged.
        static func compare(_ captured: ArraySlice<Int16>, _ expected: [Int16]) -> String? {
            let base = captured.startIndex
            guard let first = expected.indices.first(where: { base + $0 >= captured.endIndex || captured[base + $0] != expected[$0] })
            else { return nil }
            let at = base + first
            guard at < captured.endIndex else {
                return "the capture ends \((expected.count - first) / 2) frames before the signal does"
            }
            let zeros = captured[at...].prefix { $0 == 0 }.count
            let resumes = at + zeros + 64 <= captured.endIndex
                && Array(captured[(at + zeros)..<(at + zeros + 64)]) == Array(expected[first..<min(expected.count, first + 64)])
            return "frame \(first / 2) of \(expected.count / 2) differs: \(zeros / 2) frames of silence there"
                + (resumes ? ", then the signal goes on where it stopped" : ", then other samples")
        }

        @Test func whatIsPlayedIsCapturedSampleForSample() throws {
            let frames = 96 * Self.configuration.periodFrames
            let signal = Self.signal(frames: frames)
            let expected = [Int16](unsafeUninitializedCapacity: signal.count) { buffer, count in
                signal.withUnsafeBufferPointer {
                    SampleConversion.convert($0.baseAddress!, count: signal.count, to: .s16LE, into: UnsafeMutableRawPointer(buffer.baseAddress!))
                }
                count = signal.count
            }
            #expect(expected.prefix(4).allSatisfy { $0 != 0 })

            let capture = try PCMDevice(name: Self.capture, stream: .capture)
            let granted = try capture.configure(Self.configuration)
            #expect(granted.rate == 48_000 && granted.channels == 2 && granted.periodFrames == 1024)
            try capture.start()
            // Capture runs 2 s longer than the signal: the playback starts after the capture.
            let recorder = Recorder(device: capture, frames: frames + 2 * 48_000)
            let thread = Thread { recorder.run() }
            thread.start()

            let playback = try PCMDevice(name: Self.playback)
            try playback.configure(Self.configuration)
            let writer = try BlockingPCMWriter(device: playback, chunkFrames: 1024)
            let started = Box.now()
            try writer.write(signal)
            let delay = try playback.delay()
            // While the playback drains, snd-aloop can slip a jiffy (4 ms) of silence into the
            // capture: let that happen in half a second of silence after the signal.
            try writer.write([Float](repeating: 0, count: 24 * Self.configuration.periodFrames * 2))
            try writer.drain()
            let elapsed = Double(Box.now() - started) / 1e9
            recorder.finished.wait() // the capture thread ends after 4 s of audio or an error
            #expect(recorder.failure == nil)
            #expect(writer.xrunCount == 0)
            #expect((0...Self.configuration.periodFrames * 8).contains(delay), "delay \(delay) frames")
            // The card is paced by a kernel timer: 2 s of audio take about 2 s, not an instant.
            #expect(elapsed > 1.5, "2 s of audio played in \(elapsed) s")

            let captured = recorder.samples
            let start = try #require(captured.firstIndex { $0 != 0 }, "nothing came back from \(Self.capture)")
            #expect(start % 2 == 0, "the signal starts mid-frame")
            let comparison = Self.compare(captured[start...], expected)
            #expect(comparison == nil, "\(comparison ?? "")")
            #expect(captured[min(captured.count, start + expected.count)...].allSatisfy { $0 == 0 }, "sound after the signal")
        }
    }
}
