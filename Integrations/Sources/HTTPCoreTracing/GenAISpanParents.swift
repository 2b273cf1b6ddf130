import Foundation
import HTTPCore
import Tracing

/// The `ServiceContext` each exchange was created in, kept from its created event to its
/// terminal one, so that a ``GenAISpanObserver`` span has the caller's span as parent even
/// when the exchange's end is reported from a task without it (a streamed body read to its
/// end on another task, or released in a deinit).
///
/// Created events are emitted on the caller's task, so `ServiceContext.current` there is the
/// caller's. At most ``limit`` exchanges in flight are kept: one created while that many are
/// is not, and is counted (``untrackedCount``). Copies of the observer share one table.
final class GenAISpanParents: @unchecked Sendable {   // safe: `contexts`, `count` and `untracked` are touched only under `lock`
    /// The most exchanges in flight whose context is kept.
    let limit: Int
    private let lock = NSLock()
    /// The contexts by request id: several for one id when the same request value is sent
    /// again before it ended, taken first in, first out.
    private var contexts: [HTTPRequest.ID: [ServiceContext]] = [:]
    private var count = 0
    private var untracked = 0

    /// A table of at most `limit` (at least 0) exchanges in flight.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// How many exchanges were created while ``limit`` others were kept, their context not kept.
    var untrackedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return untracked
    }

    /// Keeps `context` as the parent of exchange `id` until ``take(for:)``, unless ``limit``
    /// exchanges are kept already.
    func keep(_ context: ServiceContext, for id: HTTPRequest.ID) {
        lock.lock()
        defer { lock.unlock() }
        guard count < limit else {
            untracked += 1
            return
        }
        contexts[id, default: []].append(context)
        count += 1
    }

    /// The context kept for exchange `id`, forgotten now; `nil` when none was kept.
    func take(for id: HTTPRequest.ID) -> ServiceContext? {
        lock.lock()
        defer { lock.unlock() }
        guard var kept = contexts[id], !kept.isEmpty else { return nil }
        let context = kept.removeFirst()
        contexts[id] = kept.isEmpty ? nil : kept
        count -= 1
        return context
    }
}
