import HTTPCore

extension HTTPBody {
    /// A body's server-sent events or JSON lines, read as they are asked for: what
    /// ``HTTPBody/serverSentEvents(maximumEventBytes:)`` (of ``HTTPBody/ServerSentEvent``) and
    /// ``HTTPBody/jsonLines(maximumLineBytes:)`` (of `Data`) return.
    ///
    /// Both frame the body with the parser the observers use and pull it: the next chunk is
    /// read only when the messages of the one before were all taken. Iterate it once: it reads
    /// its body, which a streamed response lets read once.
    public struct Messages<Element: Sendable>: AsyncSequence, Sendable {
        private let body: HTTPBody
        private let kind: HTTPEvent.StreamMessage.Kind
        private let maxBytes: Int
        private let element: @Sendable (StreamMessageParser.Message) -> Element

        /// The messages of `body` framed as `kind`, each of at most `maxBytes`, handed over as
        /// `element` makes them.
        init(
            body: HTTPBody, kind: HTTPEvent.StreamMessage.Kind, maxBytes: Int,
            element: @escaping @Sendable (StreamMessageParser.Message) -> Element
        ) {
            self.body = body
            self.kind = kind
            self.maxBytes = Swift.max(0, maxBytes)
            self.element = element
        }

        /// Reads the messages, pulling the body's next chunk only when it has no message ready.
        public struct Iterator: AsyncIteratorProtocol {
            private var reader: StreamMessageReader
            private let element: @Sendable (StreamMessageParser.Message) -> Element

            fileprivate init(reader: StreamMessageReader, element: @escaping @Sendable (StreamMessageParser.Message) -> Element) {
                self.reader = reader
                self.element = element
            }

            /// The next message, or `nil` once the body ended (an unfinished last server-sent
            /// event is discarded).
            ///
            /// - Returns: The message, or `nil` at the end.
            /// - Throws: ``/HTTPCore/HTTPError`` ``/HTTPCore/HTTPError/Code/responseTooLarge``
            ///   naming the limit for a message over it, after the messages before it; what the
            ///   body throws, as it is.
            public mutating func next() async throws -> Element? {
                try await reader.next().map(element)
            }
        }

        /// Starts reading the body.
        ///
        /// - Returns: An iterator of the messages.
        public func makeAsyncIterator() -> Iterator {
            Iterator(reader: StreamMessageReader(body, kind: kind, maxBytes: maxBytes), element: element)
        }
    }
}
