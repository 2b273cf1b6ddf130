@_spi(Transports) import HTTPCore
extension HTTPTransportClient {
    /// What a client is made with, in one reference, so that the client is one word.
    ///
    /// Each middleware's `next` captures the client. A client that held these fields itself
    /// would be copied field by field into each such closure (a retain per reference, the
    /// policy's included), and its layout, which would then depend on the transport, would make
    /// unspecialized code look up the client's type metadata for every capture (about 330
    /// instructions). A client that holds one reference is copied with one retain, and its
    /// layout is the same for every transport.
    final class Configuration: Sendable {
        /// ``HTTPTransportClient/middlewares``.
        let middlewares: [any HTTPMiddleware]
        /// ``HTTPTransportClient/dispatcher``.
        let dispatcher: HTTPEventDispatcher
        /// ``HTTPTransportClient/policy``, boxed once: the records of the client's exchanges share it.
        let sharedPolicy: SharedPolicy
        /// The policy's redactor, boxed once for the middlewares' contexts
        /// (``/HTTPCore/HTTPMiddlewareContext/redactor``).
        let redaction: SharedRedactor
        /// ``HTTPTransportClient/maximumBufferedResponseBytes``, never negative.
        let maximumBufferedResponseBytes: Int
        /// The transport's ``/HTTPCore/BufferedShortcut``, when it has one: looked for once, here, rather
        /// than by a dynamic cast per call.
        let bufferedShortcut: (any BufferedShortcut)?
        /// Last: every field before it has an offset that does not depend on the transport.
        let transport: Transport

        /// Keeps what a client is made with; `sharedPolicy` boxes its policy.
        init(
            transport: Transport, middlewares: [any HTTPMiddleware], dispatcher: HTTPEventDispatcher, sharedPolicy: SharedPolicy,
            maximumBufferedResponseBytes: Int
        ) {
            self.middlewares = middlewares
            self.dispatcher = dispatcher
            self.sharedPolicy = sharedPolicy
            redaction = SharedRedactor(sharedPolicy.policy.redactor)
            self.maximumBufferedResponseBytes = maximumBufferedResponseBytes
            bufferedShortcut = transport as? any BufferedShortcut
            self.transport = transport
        }
    }
}
