import ALSA
import Testing
@testable import SegmanceEngine

@Suite(.tags(.integration)) struct EngineConfigurationTests {
    init() { EngineTestEnvironment.prepare() }

    @Test func theBoardProfilesAudioTableMapsOnto() throws {
        let c = try EngineConfiguration(device: "hw:1,0", rate: 44_100, periodFrames: 256, periods: 4,
                                        formatName: "S32_LE")
        #expect(c.pcmRequest == PCMConfiguration(format: .s32LE, channels: 2, rate: 44_100, periodFrames: 256,
                                                 periodCount: 4))
        #expect(c.device == "hw:1,0")
    }

    @Test func anUnknownFormatIsRefusedByName() {
        #expect(throws: EngineError.unknownFormat("U8")) {
            try EngineConfiguration(device: "null", rate: 48_000, periodFrames: 128, periods: 3, formatName: "U8")
        }
        #expect(EngineError.unknownFormat("U8").description
            == "audio format 'U8' is not one of S16_LE, S32_LE, FLOAT_LE")
    }

    @Test(arguments: [
        (EngineConfiguration(periods: 1), EngineError.outOfRange(.periods, value: 1),
         "audio periods 1 is outside 2...64"),
        (EngineConfiguration(periodFrames: 4), .outOfRange(.periodFrames, value: 4),
         "audio period_frames 4 is outside 16...16384"),
        (EngineConfiguration(rate: 4_000), .outOfRange(.rate, value: 4_000),
         "audio rate 4000 Hz is outside 8000...384000"),
        (EngineConfiguration(realtimePriority: 120), .outOfRange(.realtimePriority, value: 120),
         "audio realtime priority 120 is outside 1...99"),
        (EngineConfiguration(periodFrames: 1024, periods: 8, rewind: .init(guardFrames: 64, chunkFrames: 128)),
         .rewindGuard(frames: 64, chunk: 128, quarterBuffer: 2048),
         "audio rewind_guard_frames 64 must be at least one render chunk (128) "
            + "and at most a quarter of the buffer (2048)"),
        (EngineConfiguration(periodFrames: 128, periods: 3, rewind: .init(guardFrames: 256)),
         .rewindGuard(frames: 256, chunk: 128, quarterBuffer: 96),
         "audio rewind_guard_frames 256 must be at least one render chunk (128) "
            + "and at most a quarter of the buffer (96)"),
        (EngineConfiguration(periodFrames: 1024, periods: 8, rewind: .init(guardFrames: 256, chunkFrames: 8)),
         .outOfRange(.renderChunk, value: 8), "audio render chunk 8 frames is outside 16...4096"),
    ])
    func valuesTheEngineCannotUseAreRefused(configuration: EngineConfiguration, error: EngineError, message: String) {
        var c = configuration
        c.device = "null"
        #expect(throws: error) { try RealtimeAudioEngine(configuration: c) }
        #expect(error.description == message)
    }

    /// The profile's `rewind_guard_frames` turns on deep-buffer scheduling: the device wakes
    /// the writer with three quarters of the buffer free, and 128-frame chunks are the render unit.
    @Test func aRewindGuardAsksForDeepBufferScheduling() throws {
        let c = try EngineConfiguration(device: "null", rate: 48_000, periodFrames: 1024, periods: 8,
                                        formatName: "FLOAT_LE", rewindGuardFrames: 256)
        #expect(c.rewind == EngineConfiguration.Rewind(guardFrames: 256, chunkFrames: 128))
        #expect(c.pcmRequest.availMin == 6144)
        #expect(try EngineConfiguration(device: "null", rate: 48_000, periodFrames: 128, periods: 3,
                                        formatName: "S16_LE").pcmRequest.availMin == nil)
    }

    @Test func aMissingDeviceNamesItself() {
        var error: EngineError?
        do {
            _ = try RealtimeAudioEngine(configuration: EngineConfiguration(device: "segtest_no_such_pcm"))
        } catch let thrown { error = thrown }
        // The ALSA error itself, with the function that failed and alsa-lib's text.
        guard case .device(let alsa)? = error else {
            Issue.record("not a device error: \(String(describing: error))")
            return
        }
        #expect(alsa.function == "snd_pcm_open")
        #expect(alsa.pcm == "segtest_no_such_pcm")
        #expect(error?.description == "audio device: \(alsa)")
        #expect(error?.description.contains(alsa.message) == true)
    }

    /// Start says what the render thread got: SCHED_FIFO where the process may use it,
    /// otherwise normal priority and a line saying so; the same for locked memory.
    @Test func startLogsTheSchedulingGranted() throws {
        let engine = try RealtimeAudioEngine(configuration: EngineConfiguration(device: "null", realtimePriority: 10,
                                                                                lockMemory: false))
        try engine.start()
        let log = engine.takeLog()
        engine.stop(drain: false)
        let scheduling = try #require(engine.scheduling)
        if scheduling.fifoPriority == 10 {
            #expect(log.contains { $0.contains("SCHED_FIFO priority 10") })
        } else {
            #expect(log.contains { $0.contains("not permitted") && $0.contains("normal priority") })
        }
        #expect(log.contains { $0.contains("null S16_LE 48000 Hz, period 128 frames × 3") })
    }
}
