import Testing
@testable import SegmanceSim
