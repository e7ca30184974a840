import Testing
@testable import ALSA

@Suite(.tags(.integration)) struct ConfigurationRefusalTests {
    init() { ALSATestEnvironment.prepare() }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var pcm: String
        var request: PCMConfiguration
        var function: String
        /// Fragments the error's description must contain.
        var fragments: [String]
        var testDescription: String { "\(pcm): \(function)" }
    }

    static let refusals: [Refusal] = [
        Refusal(pcm: ALSATestEnvironment.ratePCM,
                request: PCMConfiguration(rate: 1_000_000),
                function: "snd_pcm_hw_params_set_rate",
                fragments: ["snd_pcm_hw_params_set_rate(\(ALSATestEnvironment.ratePCM)): Invalid argument — ",
                            "rate 1000000 Hz refused; device offers 4000...768000 Hz"]),
        Refusal(pcm: ALSATestEnvironment.ratePCM,
                request: PCMConfiguration(format: .floatLE),
                function: "snd_pcm_hw_params_set_format",
                fragments: ["snd_pcm_hw_params_set_format(\(ALSATestEnvironment.ratePCM)): Invalid argument — ",
                            "format FLOAT_LE refused; device offers S16_LE, S32_LE"]),
        Refusal(pcm: "null",
                request: PCMConfiguration(channels: 0),
                function: "snd_pcm_hw_params_set_channels",
                fragments: ["snd_pcm_hw_params_set_channels(null): Invalid argument — ",
                            "0 channels refused; device offers 1...", " channels"]),
    ]

    @Test(arguments: refusals)
    func refusalNamesTheCallAndWhatTheDeviceOffers(_ refusal: Refusal) throws {
        let device = try PCMDevice(name: refusal.pcm)
        do {
            let granted = try device.configure(refusal.request)
            Issue.record("expected a refusal, got \(granted)")
        } catch {
            #expect(error.function == refusal.function)
            #expect(error.pcm == refusal.pcm)
            for fragment in refusal.fragments {
                #expect(error.description.contains(fragment), "\(error.description)")
            }
        }
        #expect(device.configuration == nil)
    }

    @Test func aRefusedDeviceCanStillBeConfigured() throws {
        let device = try PCMDevice(name: ALSATestEnvironment.ratePCM)
        #expect(throws: ALSAError.self) { try device.configure(PCMConfiguration(rate: 1_000_000)) }
        let granted = try device.configure(PCMConfiguration(rate: 44_100))
        #expect(granted.rate == 44_100)
        #expect(device.state == .prepared)
    }
}
