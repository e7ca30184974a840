import ALSA
import Testing

/// `PCMDevice(name:definitions:)`: a PCM defined in private configuration text, without
/// touching alsa-lib's global configuration.
@Suite struct PrivatePCMTests {
    @Test func aPrivatelyDefinedPCMOpensAndStaysPrivate() throws {
        let device = try PCMDevice(name: "segtest_private", definitions: "pcm.segtest_private { type null }")
        let granted = try device.configure(PCMConfiguration())
        #expect(granted.periodFrames == 128)
        #expect(throws: ALSAError.self) { try PCMDevice(name: "segtest_private") }
    }

    @Test func definitionsThatDoNotParseSayWhichCallFailed() {
        var error: ALSAError?
        do {
            _ = try PCMDevice(name: "x", definitions: "pcm.x { type null ")
        } catch let thrown { error = thrown }
        #expect(error?.function == "snd_config_load")
    }

    @Test func anUndefinedNameSaysSo() {
        var error: ALSAError?
        do {
            _ = try PCMDevice(name: "segtest_other", definitions: "pcm.segtest_private { type null }")
        } catch let thrown { error = thrown }
        #expect(error?.function == "snd_pcm_open_lconf")
        #expect(error?.description.contains("segtest_other") == true)
    }
}
