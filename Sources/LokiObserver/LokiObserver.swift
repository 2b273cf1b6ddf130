import Foundation
import HTTPCore
import HTTPCoreObservation

/// Ships one Loki line per HTTP exchange: subscribe it to a dispatcher, and every request of
/// every client on that dispatcher is logged.
///
/// ```swift
/// let loki = LokiLogger(configuration: LokiConfiguration(url: lokiURL, app: "checkout"))
/// dispatcher.subscribe(LokiObserver(logger: loki))
/// ```
///
/// Each exchange's terminal event becomes one line, stamped with its end time:
/// `method`, `url` (of the request that got the status; after redirects
/// `redirected_from` names the first request and `redirects` the statuses followed), `status`, `outcome`,
/// `duration_ms`, `http_request_id` (the client's own number for the exchange), `attempt`,
/// `correlation_id`, body sizes, `error_type` and `error` when it failed, then the request's
/// metadata under its own keys (trace ids, a server's incoming `request_id`). A metadata key
/// that is one of the line's fields, or that `| logfmt` reads as one (`duration.ms`), is
/// written as `metadata.<key>` (`metadata.url=…`): never dropped, never in the line's place. Its
/// stream adds the labels `method`, `status_class` (`2xx` … `5xx`, `failed`, `cancelled`) and
/// `host` to the logger's own; its `level` is `info` for 1xx–3xx and cancellations, `warning`
/// for 4xx and for an exchange whose note reports a failure under a 1xx–3xx status (an LLM
/// call whose response reported an error), and
/// `error` for 5xx and failures.
///
/// What interpreters derived (``/HTTPCoreObservation/HTTPEvent/attachments``) adds, before
/// `error_type`, each note's attributes as fields under their own names, in order: for an LLM
/// call read by HTTPCoreGenAI, `gen_ai.provider.name=anthropic … gen_ai.usage.output_tokens=15`
/// (a list comma-separated, a time in seconds). An attribute that LogQL's `| logfmt` would read
/// as one of the line's own fields is written under the note's name: the call's `error.type`
/// (a provider's code such as `overloaded_error`, even in a 200 stream) as `gen_ai.error.type`.
/// They are fields, not labels: models and counts make no new streams.
///
/// A streamed exchange (``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)``) is one line too, at
/// its end, with the body sizes that really went through and `streamed=true`; when its
/// response carried server-sent events or JSON lines, `stream_messages` (all that arrived)
/// and `unlogged_stream_messages` (those without a line of their own) follow. Each message
/// becomes a line as it arrives, stamped with its arrival time, in a stream whose `kind` is
/// `http_message` (labels `method`, `status_class` and `host` as the exchange's; `level`
/// `info`): `method`, `url`, `status`, `http_request_id`, `attempt`, `correlation_id`, `index`
/// (from 0), `message_kind` (`sse` or `jsonl`), `event` and `event_id` when the event has
/// them, `message_bytes` (on the wire), `truncated=true` when the policy cut it, and `data`
/// (redacted by the policy), then the metadata as on the exchange's line, so
/// `{kind="http_message"} | logfmt | http_request_id="42"` lists one exchange's messages in order. At most ``LokiConfiguration/maxMessageLinesPerExchange``
/// per exchange, after the policy's own bound.
///
/// A WebSocket connection (``/HTTPCoreObservation/WebSocketObservation``) is one line at its
/// end, `method=GET`, its `ws`/`wss` URL, `status=101` and the connection's lifetime as
/// `duration_ms`, with `websocket=true`, its close (`close_code`, `close_reason`,
/// `close_initiator`, absent when it ended without a close handshake, which is a failure),
/// `sent_messages`, `sent_bytes`, `received_messages`, `received_bytes` and
/// `unlogged_messages`; a close other than 1000, 1001 or 1005 makes it a warning. Its
/// messages get lines of their own within ``LokiConfiguration/maxMessageLinesPerExchange``, as
/// a stream's do, with `message_kind=websocket`, `direction` (`sent`, `received`) and
/// `opcode`.
///
/// Every field of an exchange's or a message's line is what the client's `HTTPCorePolicy`
/// exposes, redacted by its `HTTPCorePolicy.redactor`: the one place exchanges are redacted
/// (the logger's ``LokiConfiguration/redactor`` is for plain messages and their metadata).
///
/// `handle(_:)` runs on the task that emitted the event and only takes the event into the
/// logger's buffer: one retain and one append (a message event's index is read first,
/// redacting nothing, to keep the per-exchange bound). The line's fields (the redacted URL, error, metadata and
/// answer), its formatting and the push body are made when its batch is built, on the
/// logger's worker, in the order the lines are pushed. While it waits, an event counts what
/// it keeps alive (its request and response as the client holds them) against the
/// logger's ``LokiConfiguration/delivery`` buffer limits; the oldest lines are dropped first
/// and counted in the logger's ``LokiLogger/statistics``.
public struct LokiObserver: HTTPObserver {
    /// The logger lines go to.
    package let logger: LokiLogger

    /// Creates an observer.
    ///
    /// - Parameter logger: The logger that makes and pushes the lines.
    public init(logger: LokiLogger) {
        self.logger = logger
    }

    /// Terminal and retried events, and message events when the logger ships message lines
    /// (``LokiConfiguration/maxMessageLinesPerExchange`` above 0): the only ones that make a
    /// line.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        let names = HTTPEvent.Name.terminal.union([.requestRetried])
        return logger.configuration.maxMessageLinesPerExchange > 0 ? names.union([.responseMessage]) : names
    }

    /// Queues the event of an exchange's end, of a retried attempt or of a streamed message
    /// within ``LokiConfiguration/maxMessageLinesPerExchange``, for its line to be made on
    /// the logger's worker; other events are ignored.
    ///
    /// - Parameter event: The event the dispatcher delivers, on the task that emitted it.
    public func handle(_ event: HTTPEvent) {
        if event.name == .responseMessage {
            let maxMessageLines = logger.configuration.maxMessageLinesPerExchange
            guard maxMessageLines > 0, let index = event.messageIndex, index < maxMessageLines else { return }
        } else {
            guard event.name.isTerminal || event.name == .requestRetried else { return }
        }
        logger.enqueue(event)
    }
}
