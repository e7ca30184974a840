import Testing
@testable import SegmanceMedia
