import Foundation
import Testing
@testable import ALSA

@Suite(.tags(.unit)) struct ALSAErrorTests {
    @Test func descriptionNamesCallPCMTextAndDetail() {
        let error = ALSAError(function: "snd_pcm_hw_params_set_rate", pcm: "hw:0", result: -EINVAL,
                              detail: "device offers 44100...48000 Hz")
        #expect(error.code == EINVAL)
        #expect(error.alsaResult == -EINVAL)
        #expect(error.description
                == "snd_pcm_hw_params_set_rate(hw:0): Invalid argument — device offers 44100...48000 Hz")
    }

    @Test func withoutDetailTheDescriptionEndsWithALSAsText() {
        let error = ALSAError(function: "snd_pcm_writei", pcm: "null", result: -EPIPE)
        #expect(error.description == "snd_pcm_writei(null): Broken pipe")
        #expect(error.isXrun)
        #expect(!error.isSuspended)
        #expect(!error.isWouldBlock)
    }

    @Test func positiveAndNegativeResultsMeanTheSameCode() {
        #expect(ALSAError(function: "f", pcm: "p", result: ESTRPIPE)
                == ALSAError(function: "f", pcm: "p", result: -ESTRPIPE))
    }
}
