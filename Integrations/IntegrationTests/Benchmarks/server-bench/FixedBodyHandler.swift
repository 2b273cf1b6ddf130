import NIOCore
import NIOHTTP1

/// Answers each request of a connection with its ``FixedResponses`` entry (404 with no body
/// for any other path), keeping the connection open unless the request asked to close it.
///
/// It sits after NIO's HTTP server pipeline, which orders pipelined requests; it reads the
/// path from the head and answers at the request's end.
final class FixedBodyHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// The request parts from NIO's HTTP server pipeline.
    typealias InboundIn = HTTPServerRequestPart
    /// The response parts written back.
    typealias OutboundOut = HTTPServerResponsePart

    /// The answers by path.
    private let responses: FixedResponses
    /// The request being received and its answer, from its head to its end.
    private var pending: (head: HTTPRequestHead, response: FixedResponses.Response?)?

    /// A handler answering from `responses`.
    init(responses: FixedResponses) {
        self.responses = responses
    }

    /// Keeps the request head until its end, then writes the answer.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            pending = (head, responses.response(forPath: head.uri))
        case .body:
            break
        case .end:
            guard let (request, response) = pending else { return }
            pending = nil
            respond(to: request, with: response, context: context)
        }
    }

    /// Writes the head, the body and the end; closes after them when the request asked to.
    private func respond(to request: HTTPRequestHead, with response: FixedResponses.Response?, context: ChannelHandlerContext) {
        let head: HTTPResponseHead
        if let response {
            head = HTTPResponseHead(version: request.version, status: .ok, headers: response.headers)
        } else {
            head = HTTPResponseHead(version: request.version, status: .notFound, headers: ["Content-Length": "0"])
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let response {
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !request.isKeepAlive {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
