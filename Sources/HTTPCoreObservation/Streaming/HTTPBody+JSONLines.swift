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
    public func jsonLines(maximumLineBytes: Int = 1 << 20) -> Messages<Data> {
        Messages(body: self, kind: .jsonLine, maxBytes: maximumLineBytes) { $0.data }
    }
}
