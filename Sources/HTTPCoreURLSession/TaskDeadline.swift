import Dispatch
import Foundation

/// A one-shot timer that ends a URLSession task at its request's deadline, unless disarmed
/// first: how ``URLSessionTransport`` ends an exchange by ``/HTTPCore/HTTPRequest/timeout``,
/// head and body, where `URLRequest.timeoutInterval` only bounds the time between packets.
///
/// A dispatch timer, not a sleeping Swift task: arming one is cheap, and disarming it frees
/// it at once (see the Performance article).
struct TaskDeadline: @unchecked Sendable {
    // @unchecked: a dispatch source is safe to cancel from any thread, and `fire` runs once.
    private let source: any DispatchSourceTimer

    /// Arms a timer that calls `fire` once `seconds` have passed.
    init(after seconds: TimeInterval, fire: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + max(0, seconds))
        source.setEventHandler(handler: fire)
        source.resume()
    }

    /// Stops the timer; `fire` will not be called after this returns, unless it began already.
    func disarm() {
        source.cancel()
    }
}
