import GRDB
import SegmanceCore
