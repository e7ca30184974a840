import Testing
@testable import SegmanceControls
