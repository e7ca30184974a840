import Testing
@testable import SegmanceScreen
