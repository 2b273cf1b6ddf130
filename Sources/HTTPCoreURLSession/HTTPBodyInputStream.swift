import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking

/// The `InputStream` FoundationNetworking reads a streamed request body from, over a
/// ``RequestBodyPipe``.
///
/// FoundationNetworking has no `Stream.getBoundStreams` and ends the body at the first
/// `hasBytesAvailable` that is false, so `read` blocks until the pipe has bytes, the body
/// ended, or the pipe was aborted. libcurl reads on the session's work queue, which serves
/// every task of the session: a body that is slow to produce slows the session's other
/// transfers meanwhile.
final class HTTPBodyInputStream: InputStream {
    private let pipe: RequestBodyPipe
    /// Only libcurl's reads, on the session's work queue, touch it.
    private var status = Stream.Status.notOpen

    init(pipe: RequestBodyPipe) {
        self.pipe = pipe
        super.init(data: Data())
    }

    override func open() {
        status = .open
        pipe.start()
    }

    override func close() {
        status = .closed
        pipe.abort()
    }

    override var streamStatus: Stream.Status { status }

    override var streamError: (any Error)? { pipe.failure }

    override var hasBytesAvailable: Bool { pipe.hasBytesAvailable }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        let count = pipe.read(into: buffer, maxLength: maxLength)
        if count <= 0 { status = count == 0 ? .atEnd : .error }
        return count
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}
#endif
