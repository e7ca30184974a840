import CLinuxSystem

/// Writing a file's dirty pages to the disk ahead of an `fsync`.
public enum Writeback {
    /// Starts writing the dirty pages of the byte range `offset..<offset+count` of `descriptor`
    /// without waiting (`sync_file_range(SYNC_FILE_RANGE_WRITE)`); whether it started.
    @discardableResult
    public static func start(_ descriptor: Int32, offset: Int64, count: Int64) -> Bool {
        segmance_start_writeback(descriptor, offset, count) == 0
    }
}
