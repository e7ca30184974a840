import GRDB
@testable import SegmanceLibrary
import Testing

/// What makes a commit durable before it returns: the writer's `synchronous = FULL` (in WAL
/// mode, the WAL is fsynced at every commit). GRDB sets NORMAL when it turns WAL on, so the
/// setting is read back from the connection that writes.
@Suite(.tags(.integration)) struct DurabilityTests {
    @Test func theWriterSyncsEveryCommit() throws {
        let fixture = try LibraryFixture()
        let library = try fixture.open()
        // 2 = FULL (0 OFF, 1 NORMAL, 3 EXTRA).
        let level = try library.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(level == 2)
    }
}
