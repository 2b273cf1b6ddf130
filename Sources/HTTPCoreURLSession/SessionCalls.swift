import Foundation

/// Where ``URLSessionTransport`` creates, resumes and cancels its tasks: never on a thread
/// of Swift's cooperative pool, on Linux.
///
/// FoundationNetworking's `dataTask(with:)`, `resume()` and `cancel()` each wait for the
/// session's work queue (a `dispatch_sync`), and that queue is where libcurl reads a streamed
/// request body: it waits there until the body's producer, a Swift task, hands over bytes.
/// Were those calls made on the cooperative pool, a few requests started while an upload
/// waits for its body would hold every thread of the pool, the producer could never run, and
/// the process would hang. So on Linux each call runs, in the order it was made, on a serial
/// dispatch queue of the transport's own. On Apple platforms, where these calls do not wait
/// for transfers, they run in place.
struct SessionCalls: Sendable {
    #if canImport(FoundationNetworking)
    private let queue = DispatchQueue(label: "HTTPCore.URLSessionTransport.calls")
    #endif

    /// Runs `call` on the transport's queue (Linux) or in place (Apple platforms).
    func run(_ call: @escaping @Sendable () -> Void) {
        #if canImport(FoundationNetworking)
        queue.async(execute: call)
        #else
        call()
        #endif
    }
}
