/// Events an ``HTTPEventDispatcher`` dropped for one observer because its buffer was full,
/// told to the observer by ``HTTPObserver/handleMissedEvents(_:)``.
///
/// The dispatcher drops the oldest events waiting for an observer, so the events of one gap
/// are consecutive in emission order: the observer received every event emitted before them
/// and receives, from the next call on, events emitted after them. Knowing how many of them
/// ended something lets an observer count what it will never see, in its own unit: an
/// observer that records one entry per exchange lost ``terminalCount`` of them, one that also
/// records retried attempts lost ``terminalCount`` + ``retriedCount``.
public struct HTTPMissedEvents: Sendable, Hashable, CustomStringConvertible {
    /// How many events were dropped.
    public var count: Int
    /// How many of them were terminal (``HTTPEvent/Name/isTerminal``): exchanges whose end the
    /// observer will never see (it may have seen their start).
    public var terminalCount: Int
    /// How many of them were ``HTTPEvent/Name/requestRetried``: attempts whose end the
    /// observer will never see.
    public var retriedCount: Int
    /// How many of them were ``HTTPEvent/Name/responseMessage``: streamed messages (a
    /// server-sent event, a JSON line) the observer will never see.
    public var messageCount: Int

    /// Creates a count of missed events; `terminalCount`, `retriedCount` and `messageCount`
    /// are among `count`.
    public init(count: Int = 0, terminalCount: Int = 0, retriedCount: Int = 0, messageCount: Int = 0) {
        self.count = count
        self.terminalCount = terminalCount
        self.retriedCount = retriedCount
        self.messageCount = messageCount
    }

    /// Counts one more dropped event. Runs under the observer queue's lock while an emit
    /// waits: a comparison or two, no allocation.
    mutating func record(_ name: HTTPEvent.Name) {
        count += 1
        if name.isTerminal {
            terminalCount += 1
        } else if name == .requestRetried {
            retriedCount += 1
        } else if name == .responseMessage {
            messageCount += 1
        }
    }

    /// `1725 events (431 exchange ends, 0 retried attempts)`, and `, 12 streamed messages`
    /// when some were.
    public var description: String {
        let messages = messageCount == 0 ? "" : ", \(messageCount) streamed message\(messageCount == 1 ? "" : "s")"
        return "\(count) event\(count == 1 ? "" : "s") (\(terminalCount) exchange end\(terminalCount == 1 ? "" : "s"), "
            + "\(retriedCount) retried attempt\(retriedCount == 1 ? "" : "s")\(messages))"
    }
}
