import HTTPCoreConcurrency

/// The process's count of body bytes copied between a transport's storage and HTTPCore's
/// chunks, and of those handed over in the transport's storage without a copy: what a test
/// reads to prove that a path copies nothing (a proxy from AsyncHTTPClient to a server
/// framework) and fails when a copy comes back.
///
/// HTTPCore counts the copies it makes (``HTTPBody/Piece/bytes``); a transport's integration
/// counts its own, in both directions, and the chunks its consumers took as they were. The
/// counts cover every body of the process since it started: read them before and after the
/// work.
///
/// Only debug builds count, which is where tests run: a release build keeps no count (both
/// stay 0), so no body anywhere takes a process-wide lock for a chunk it copies or hands over.
@_spi(Transports) public enum HTTPBodyCopies {
    private struct Counts {
        var copied = 0
        var handedOver = 0
    }

    private static let counts = Locked(Counts())

    /// The bytes copied between a transport's storage and body chunks so far.
    public static var copiedByteCount: Int { counts.withLock { $0.copied } }

    /// The bytes handed over in a transport's own storage, not copied, so far.
    public static var handedOverByteCount: Int { counts.withLock { $0.handedOver } }

    /// Counts `byteCount` bytes copied between a transport's storage and a body chunk.
    ///
    /// - Parameter byteCount: the bytes copied.
    public static func recordCopy(byteCount: Int) {
        #if DEBUG
        counts.withLock { $0.copied += byteCount }
        #endif
    }

    /// Counts `byteCount` bytes handed over in a transport's own storage, without a copy.
    ///
    /// - Parameter byteCount: the bytes handed over.
    public static func recordHandOver(byteCount: Int) {
        #if DEBUG
        counts.withLock { $0.handedOver += byteCount }
        #endif
    }
}
