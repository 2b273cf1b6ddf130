import Foundation
import HTTPCore

extension HTTPBody {
    /// The body read as JSON lines (NDJSON, JSON Lines: `application/x-ndjson`,
    /// `application/jsonl`), one line at a time, each of at most `maximumLineBytes`.
    ///
    /// ```swift
    /// struct Chunk: Decodable { let response: String }
    /// let (head, body) = try await client.send(request, body: nil)
    /// for try await line in body.jsonLines() {
    ///     print(try JSONDecoder().decode(Chunk.self, from: line).response, terminator: "")
    /// }
    /// ```
    ///
    /// The lines are split by the parser the observers use: a line ends with LF, CRLF or CR,
    /// wherever the chunks break, and is handed over without its break; blank lines (spaces
    /// and tabs only) are skipped; a last line without a line break counts. Each line is
    /// handed over as it came, not parsed: decode it as you need.
    ///
    /// Reading pulls the body: a chunk is read only when the lines of the one before were all
    /// taken, so a slow consumer slows the transfer (no task, no buffer of its own beyond the
    /// lines of one chunk and the line being read).
    ///
    /// - Parameter maximumLineBytes: The most bytes of a line: 1 MiB by default. A longer line
    ///   fails the sequence as soon as it is over, so memory stays bounded whatever the server
    ///   sends.
    /// - Returns: The lines' bytes, in the order they arrived. Iterating throws
    ///   ``/HTTPCore/HTTPError`` ``/HTTPCore/HTTPError/Code/responseTooLarge`` naming the limit
    ///   for a longer line (after the lines before it), and what the body throws (an
    ///   ``/HTTPCore/HTTPError`` such as `connection_lost` when the transfer was cut), as it is.
    public func jsonLines(maximumLineBytes: Int = 1 << 20) -> JSONLines {
        JSONLines(body: self, maximumLineBytes: Swift.max(0, maximumLineBytes))
    }

    /// A body's JSON lines, read as they are asked for: what
    /// ``HTTPBody/jsonLines(maximumLineBytes:)`` returns.
    ///
    /// Iterate it once: it reads its body, which a streamed response lets read once.
    public struct JSONLines: AsyncSequence, Sendable {
        /// A line's bytes, without its line break.
        public typealias Element = Data

        private let body: HTTPBody
        private let maximumLineBytes: Int

        fileprivate init(body: HTTPBody, maximumLineBytes: Int) {
            self.body = body
            self.maximumLineBytes = maximumLineBytes
        }

        /// Reads the lines, pulling the body's next chunk only when it has no line ready.
        public struct Iterator: AsyncIteratorProtocol {
            private var reader: StreamMessageReader

            fileprivate init(reader: StreamMessageReader) {
                self.reader = reader
            }

            /// The next line, or `nil` once the body ended.
            ///
            /// - Returns: The line's bytes, or `nil` at the end.
            /// - Throws: ``/HTTPCore/HTTPError`` ``/HTTPCore/HTTPError/Code/responseTooLarge``
            ///   for a line over the limit; what the body throws.
            public mutating func next() async throws -> Data? {
                try await reader.next()?.data
            }
        }

        /// Starts reading the body.
        ///
        /// - Returns: An iterator of the lines.
        public func makeAsyncIterator() -> Iterator {
            Iterator(reader: StreamMessageReader(body, kind: .jsonLine, maxBytes: maximumLineBytes))
        }
    }
}
