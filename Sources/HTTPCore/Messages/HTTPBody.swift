import Foundation
import HTTPCoreConcurrency

/// A request or response body as an async sequence of byte chunks, with a known or unknown
/// length, that can be iterated once or many times.
///
/// Build it from bytes you have (replayable), from any async sequence of chunks (one pass),
/// or from a closure that produces the sequence again for each pass (replayable, for uploads
/// a retry must be able to send again):
///
/// ```swift
/// let small = HTTPBody(Data("{}".utf8))
/// let file = HTTPBody(length: .known(size)) { fileChunks(at: path) }   // each pass reopens the file
/// let once = HTTPBody(stream, length: .unknown)                         // a single pass
/// for try await chunk in once { consume(chunk) }
/// ```
///
/// Collecting a body always names a cap (``collect(upTo:)``): a body larger than the cap
/// throws ``HTTPError`` ``HTTPError/Code/responseTooLarge`` instead of filling memory. A body
/// that can be iterated only once throws ``HTTPError/Code/bodyAlreadyRead`` from a second
/// iterator rather than replaying nothing. Every error of the body API is an ``HTTPError``.
///
/// The shape follows swift-openapi-runtime's `HTTPBody`: chunks are `ArraySlice<UInt8>`,
/// with the same ``Length`` and ``IterationBehavior``.
public struct HTTPBody: Sendable {
    /// One piece of a body.
    public typealias ByteChunk = ArraySlice<UInt8>

    /// How many bytes a body has, when that is known before reading it.
    public enum Length: Sendable, Hashable {
        /// The byte count is not known until the body ends (a chunked response, a stream).
        case unknown
        /// The body has exactly this many bytes.
        case known(Int64)
    }

    /// Whether a body can be iterated more than once.
    public enum IterationBehavior: Sendable, Hashable {
        /// One pass: a second iterator throws ``HTTPError/Code/bodyAlreadyRead``.
        case single
        /// Any number of passes, each from the start (bytes in memory, or a sequence made
        /// again for each pass).
        case multiple
    }

    /// How many bytes the body has, when known in advance.
    public let length: Length
    /// Whether the body can be iterated more than once, for example by a retry.
    public let iterationBehavior: IterationBehavior

    private let makeChunks: @Sendable () -> AnyChunks
    /// Set once the single pass of a `.single` body has begun; `nil` for `.multiple` bodies.
    private let isIterated: Locked<Bool>?
    /// Tells the producer that nobody reads on; `nil` for bodies without one.
    private let onStop: (@Sendable () -> Void)?
    /// The bytes of a body made from `Data`, which ``collect(upTo:)`` returns without a pass.
    package let inMemoryBytes: Data?

    /// A body of `bytes`, replayable, of known length.
    public init(_ bytes: Data) {
        self.init(length: .known(Int64(bytes.count)), iterationBehavior: .multiple, inMemory: bytes) {
            AnyChunks(single: ByteChunk(bytes))
        }
    }

    /// A body of `bytes`, replayable, of known length.
    public init(_ bytes: [UInt8]) {
        self.init(chunk: bytes[...])
    }

    /// A body of `text` in UTF-8, replayable, of known length.
    public init(_ text: String) {
        self.init(chunk: ByteChunk(text.utf8))
    }

    /// An empty body.
    public init() {
        self.init(chunk: [])
    }

    private init(chunk: ByteChunk) {
        self.init(length: .known(Int64(chunk.count)), iterationBehavior: .multiple) {
            AnyChunks(single: chunk)
        }
    }

    /// A body read from `sequence` in one pass, as its chunks arrive.
    ///
    /// - Parameters:
    ///   - sequence: the chunks; empty chunks are passed on as they come.
    ///   - length: the byte count when known in advance (a `Content-Length` to send).
    public init<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, length: Length)
    where Chunks.Element == ByteChunk {
        self.init(length: length, iterationBehavior: .single) { AnyChunks(sequence) }
    }

    /// A replayable body whose chunks `makeSequence` produces again for each pass, so that a
    /// retry or a redirect can send it again (a file reopened, a generator restarted).
    ///
    /// - Parameters:
    ///   - length: the byte count when known in advance; every pass must have it.
    ///   - makeSequence: makes the sequence of one pass.
    public init<Chunks: AsyncSequence & Sendable>(length: Length, makeSequence: @escaping @Sendable () -> Chunks)
    where Chunks.Element == ByteChunk {
        self.init(length: length, iterationBehavior: .multiple) { AnyChunks(makeSequence()) }
    }

    /// A body over any chunk maker; `onStop` runs when the exchange that carries the body
    /// ends before its reader reached the end (see ``stopReading()``).
    package init(
        length: Length,
        iterationBehavior: IterationBehavior,
        onStop: (@Sendable () -> Void)? = nil,
        inMemory: Data? = nil,
        makeChunks: @escaping @Sendable () -> AnyChunks
    ) {
        inMemoryBytes = inMemory
        self.length = length
        self.iterationBehavior = iterationBehavior
        self.makeChunks = makeChunks
        self.onStop = onStop
        isIterated = iterationBehavior == .single ? Locked(false) : nil
    }

    /// Whether the one pass of a `.single` body has begun; always `false` for `.multiple`.
    package var hasBeenIterated: Bool { isIterated?.withLock { $0 } ?? false }

    /// Tells the body's producer that nobody will read on, so that it stops producing (a
    /// transport cancels its task); nothing for a body without a producer to tell.
    package func stopReading() {
        onStop?()
    }
}

extension HTTPBody: AsyncSequence {
    /// A chunk of the body.
    public typealias Element = ByteChunk

    /// Reads one pass of a body, chunk by chunk.
    public struct Iterator: AsyncIteratorProtocol {
        private var chunks: AnyChunks

        fileprivate init(_ chunks: AnyChunks) {
            self.chunks = chunks
        }

        /// The next chunk, or `nil` once the body has ended. Throws what the underlying
        /// sequence throws, or ``HTTPError/Code/bodyAlreadyRead`` for a second pass of a
        /// `.single` body.
        ///
        /// A chunk that a transport handed over in its own storage (a SwiftNIO `ByteBuffer`
        /// from AsyncHTTPClient) is copied here, once, into the `ByteChunk` returned; a
        /// consumer that can write the transport's storage reads it without the copy (for
        /// AsyncHTTPClient, `HTTPCoreAsyncHTTPClient`'s `byteBuffers`).
        public mutating func next() async throws -> ByteChunk? {
            try await chunks.next()?.bytes
        }

        /// The next piece as the body's producer made it, or `nil` once the body has ended:
        /// a transport's chunk in the transport's own storage, not copied, for a consumer that
        /// can write that storage on (see ``HTTPBodyTransportChunk``). Throws as ``next()``.
        @_spi(Transports) public mutating func nextPiece() async throws -> Piece? {
            try await chunks.next()
        }
    }

    /// Starts a pass over the body. For a `.single` body, only the first call reads it.
    public func makeAsyncIterator() -> Iterator {
        if let isIterated, isIterated.withLock({ iterated in defer { iterated = true }; return iterated }) {
            return Iterator(AnyChunks(failing: Self.alreadyRead))
        }
        return Iterator(makeChunks())
    }
}

extension HTTPBody {
    /// Reads the whole body into memory, refusing one longer than `maxBytes`.
    ///
    /// A body whose known ``length`` is over the cap throws before reading a byte; any other
    /// throws as soon as its chunks pass the cap, having kept no more than `maxBytes`.
    ///
    /// - Throws: ``HTTPError`` ``HTTPError/Code/responseTooLarge`` naming the cap, ``HTTPError``
    ///   ``HTTPError/Code/bodyAlreadyRead`` for a second pass of a `.single` body, or what the
    ///   underlying sequence throws (an ``HTTPError`` when the body came from an HTTPCore
    ///   client).
    public func collect(upTo maxBytes: Int) async throws -> Data {
        let maxBytes = Swift.max(0, maxBytes)
        if let inMemoryBytes {
            guard inMemoryBytes.count <= maxBytes else { throw Self.tooManyBytes(maxBytes) }
            return inMemoryBytes
        }
        var collected = Data()
        if case .known(let count) = length {
            guard count <= Int64(maxBytes) else { throw Self.tooManyBytes(maxBytes) }
            collected.reserveCapacity(Int(count))
        }
        // Pieces, not chunks: a transport's chunk is appended from its own storage, copied once.
        var pieces = makeAsyncIterator()
        while let piece = try await pieces.nextPiece() {
            guard piece.count <= maxBytes - collected.count else { throw Self.tooManyBytes(maxBytes) }
            piece.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { collected.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
            }
        }
        return collected
    }

    /// The most bytes a client or transport that only buffers collects from a streamed
    /// request body before sending it: 1 GiB.
    public static let maximumBufferedBytes = 1 << 30

    /// `body` collected for a client or transport that only buffers: up to
    /// ``maximumBufferedBytes``, else ``HTTPError/Code/invalidRequest``.
    package static func collectForBuffering(_ body: HTTPBody) async throws -> Data {
        do {
            return try await body.collect(upTo: maximumBufferedBytes)
        } catch HTTPError.Code.responseTooLarge {
            throw HTTPError.transport(
                .invalidRequest,
                message: "a request body sent through a transport that buffers is at most 1 GiB (HTTPBody.maximumBufferedBytes)"
            )
        }
    }

    /// The whole body for a buffered call, up to `maximumBytes`: past that cap (and not a
    /// limit of the body's own producer, which keeps its message) it fails naming the
    /// client's setting.
    package func collectForBufferedCall(upTo maximumBytes: Int) async throws -> Data {
        do {
            return try await collect(upTo: maximumBytes)
        } catch let error as HTTPError where error == Self.tooManyBytes(maximumBytes) {
            throw Self.bufferedCallTooLarge(maximumBytes)
        }
    }

    /// What a buffered call (``HTTPClient/send(_:)``) fails with when the response body is
    /// over `maximumBytes`, the client's `HTTPTransportClient.maximumBufferedResponseBytes`:
    /// thrown by the client's collect, and by a ``BufferedShortcut`` that collects itself.
    @_spi(Transports) public static func bufferedCallTooLarge(_ maximumBytes: Int) -> HTTPError {
        .transport(
            .responseTooLarge,
            message: "the response body is over \(maximumBytes) bytes, the most a buffered call takes "
                + "(HTTPTransportClient.maximumBufferedResponseBytes); read it with send(_:body:)"
        )
    }

    /// What ``collect(upTo:)`` throws for a body over `maxBytes`.
    static func tooManyBytes(_ maxBytes: Int) -> HTTPError {
        .transport(.responseTooLarge, message: "the body is longer than \(maxBytes) bytes, the limit given to collect(upTo:)")
    }

    /// What a second pass over a body that can be read once throws.
    static let alreadyRead = HTTPError.transport(
        .bodyAlreadyRead, message: "this body can be read once and was read already; make it replayable to read it again"
    )
}

/// One pass over some sequence of chunks, its type erased.
package struct AnyChunks {
    private var produceNext: () async throws -> HTTPBody.Piece?

    package init<Chunks: AsyncSequence>(_ sequence: Chunks) where Chunks.Element == HTTPBody.ByteChunk {
        var iterator = sequence.makeAsyncIterator()
        produceNext = { try await iterator.next().map(HTTPBody.Piece.bytes) }
    }

    package init(next: @escaping () async throws -> HTTPBody.Piece?) {
        produceNext = next
    }

    package init(single chunk: HTTPBody.ByteChunk) {
        var remaining: HTTPBody.Piece? = chunk.isEmpty ? nil : .bytes(chunk)
        produceNext = {
            defer { remaining = nil }
            return remaining
        }
    }

    package init(failing error: any Error) {
        produceNext = { throw error }
    }

    package mutating func next() async throws -> HTTPBody.Piece? {
        try await produceNext()
    }
}
