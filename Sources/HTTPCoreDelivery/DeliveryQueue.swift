import Dispatch
import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// Delivers items to a destination in batches, at no cost to the code that enqueues them.
///
/// Use it to ship logs, spans or events anywhere: give it a ``DeliverySender`` that builds
/// and sends a batch, and enqueue items.
///
/// ```swift
/// let queue = DeliveryQueue(sender: LineSender(url: collector), configuration: configuration)
/// queue.enqueue("GET /health 200", byteCost: 64)
/// await queue.flush()
/// print(queue.statistics)   // accepted 1, delivered 1, ...
/// ```
///
/// - Cost: ``enqueue(_:byteCost:)`` takes a lock, appends, and returns; it never waits for a
///   send. Batches are built and sent by tasks that exist only while a send is under way.
///   With ``DeliveryConfiguration/buildsBatchesAhead``, while the sends under way take every
///   slot (``DeliveryConfiguration/maximumConcurrentSends``), the next batch is built beside
///   them, one at a time and at a lower priority, so that it leaves as soon as a send ends:
///   building overlaps sending where a core is free. A batch built ahead whose items were
///   dropped or expired meanwhile is discarded, and counts nothing.
/// - Memory: waiting items are bounded by ``DeliveryConfiguration/bufferLimit`` and
///   ``DeliveryConfiguration/bufferByteLimit``; the oldest are dropped first, and counted.
///   Items keep counting there while their batch is built ahead; beyond the limits there are
///   the batches being sent and at most one batch built ahead.
/// - Batching: a batch is sent when it holds ``DeliveryConfiguration/Batching/maximumCount``
///   items or ``DeliveryConfiguration/Batching/maximumBytes`` bytes, or when its oldest item
///   has waited ``DeliveryConfiguration/Batching/maximumDelay``, whichever comes first. Only
///   a full batch is built ahead, so batches are as large as they would be without it, and
///   with one send at a time they leave in the order their items were accepted.
/// - Failures: a retryable answer is retried with backoff (or after the destination's
///   `Retry-After`), at most ``DeliveryConfiguration/maximumRetries`` times; a refusal is
///   counted, never retried.
/// - Outages: when the destination does not answer, the queue goes offline. The batch goes
///   back to the front of the buffer, and one probe at a time, with the oldest batch at
///   growing intervals, finds out when it answers again; then everything still buffered is
///   delivered in order. A probe is not a retry: during an outage of any length items leave
///   the buffer only by overflow (oldest first) or by ``DeliveryConfiguration/maximumAge``,
///   both counted and reported.
/// - Accounting: every item ends in exactly one counter of ``statistics``; see
///   ``DeliveryStatistics``.
public final class DeliveryQueue<Sender: DeliverySender>: Sendable {
    /// What builds and sends the batches.
    package let sender: Sender
    /// The configuration the queue was created with.
    package let configuration: DeliveryConfiguration
    private let state: Locked<DeliveryQueueState>

    /// Creates a queue; nothing runs until an item is enqueued.
    ///
    /// - Parameters:
    ///   - sender: Builds and sends the batches.
    ///   - configuration: How items are buffered, batched and retried.
    public init(sender: Sender, configuration: DeliveryConfiguration = DeliveryConfiguration()) {
        self.sender = sender
        self.configuration = configuration
        state = Locked(DeliveryQueueState(machine: DeliveryStateMachine(configuration: configuration)))
    }

    /// The counters so far, with the items pending now.
    public var statistics: DeliveryStatistics {
        state.withLock { $0.machine.statistics }
    }

    /// Accepts an item and makes sure it will be sent. Never waits.
    ///
    /// `byteCost` is what the item keeps alive while it waits, as the caller accounts it; the
    /// buffer's byte limit and the batches' byte limit are measured with it.
    ///
    /// - Parameters:
    ///   - item: The item to deliver.
    ///   - byteCost: What the item keeps alive while it waits, in bytes.
    public func enqueue(_ item: Sender.Item, byteCost: Int) {
        let now = configuration.uptimeNanoseconds()
        perform { $0.enqueue(item, byteCost: byteCost, now: now) }
    }

    /// Returns when every item accepted before the call was delivered or given up. Batches
    /// that are not full are sent at once. While the destination is unreachable it returns
    /// at once: the items stay buffered (``DeliveryStatistics/pending``) and are delivered
    /// when the destination answers again.
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = configuration.uptimeNanoseconds()
            perform { state in
                let (waiter, actions) = state.machine.flush(now: now)
                state.flushes[waiter] = continuation
                return actions
            }
        }
    }

    /// Sends what the destination takes without further waiting (a batch that fails is given
    /// up rather than retried after a backoff, and an unreachable destination is probed once
    /// more at once), then stops. What could not be delivered is counted as failed and
    /// reported; items enqueued later are counted as dropped.
    public func shutdown() async {
        let now = configuration.uptimeNanoseconds()
        perform { $0.machine.beginShutdown(now: now) }
        await flush()
        perform { $0.machine.finishShutdown() }
        // Sends of items enqueued while stopping end before shutdown returns.
        await flush()
    }

    /// Ends every backoff: waiting batches are tried at once and an unreachable destination
    /// is probed at once, for example because the destination just changed.
    package func retryNow() {
        let now = configuration.uptimeNanoseconds()
        perform { $0.retryNow(now: now) }
    }

    // MARK: Performing the machine's actions

    private func perform(_ input: (inout DeliveryStateMachine) -> DeliveryStateMachine.Actions) {
        perform { state in input(&state.machine) }
    }

    /// Applies an input under the lock, then starts the sends and the build and delivers the
    /// outbox outside it; the items the input dropped are released outside it too.
    private func perform(_ input: (inout DeliveryQueueState) -> DeliveryStateMachine.Actions) {
        let (sends, build, delivers, evicted) = state.withLock { state in
            let actions = input(&state)
            let (sends, build) = state.take(actions) { timer in
                Task.detached { [self] in
                    do { try await Task.sleep(nanoseconds: timer.delay) } catch { return }
                    let now = configuration.uptimeNanoseconds()
                    perform { state in
                        state.timers[timer.id] = nil
                        return state.machine.timerFired(timer.id, now: now)
                    }
                }
            }
            let delivers = !state.outbox.isEmpty && !state.isDeliveringOutbox
            if delivers { state.isDeliveringOutbox = true }
            return (sends, build, delivers, actions.evicted)
        }
        // The last reference to an item dropped from a full buffer: freed here, off the lock.
        withExtendedLifetime(evicted) {}
        if delivers { deliverOutbox() }
        for send in sends {
            Task.detached { [self] in
                let batch = send.batch as? Sender.Batch ?? sender.makeBatch(send.items.map { $0.element as! Sender.Item })
                let outcome = await sender.send(batch)
                let now = configuration.uptimeNanoseconds()
                perform { $0.sendCompleted(send.flight, outcome: outcome, batch: batch, now: now) }
            }
        }
        if let build {
            // Below the sends' priority: no upload waits for it until one ends, and the global
            // executor on Linux runs each priority on threads of its own (as many as cores), so
            // the build leaves the sends' threads free for the hops of the upload it overlaps.
            Task.detached(priority: .utility) { [self] in
                let batch = sender.makeBatch(build.items.map { $0.element as! Sender.Item })
                let now = configuration.uptimeNanoseconds()
                perform { $0.batchBuilt(build.id, batch: batch, now: now) }
            }
        }
    }

    /// Makes the reports and resumes the flushes waiting in the outbox, in the machine's
    /// order, until it is empty: so whoever a flush wakes sees every report made before it,
    /// whichever thread made it. One thread at a time delivers; another that finds the outbox
    /// being delivered leaves its entries and returns without waiting, and a diagnostics
    /// handler that logs through this very queue adds its entries behind the ones it is
    /// handling.
    private func deliverOutbox() {
        while true {
            let entries = state.withLock { state -> [DeliveryQueueOutboxEntry] in
                if state.outbox.isEmpty { state.isDeliveringOutbox = false }
                defer { state.outbox = [] }
                return state.outbox
            }
            guard !entries.isEmpty else { return }
            for entry in entries {
                switch entry {
                case .report(let diagnostic): configuration.diagnostics(diagnostic)
                case .resume(let continuation): continuation.resume()
                }
            }
        }
    }
}
