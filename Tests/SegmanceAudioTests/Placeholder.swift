import Testing
@testable import SegmanceAudio
