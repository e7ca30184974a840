import Testing
@testable import SegmanceCore
