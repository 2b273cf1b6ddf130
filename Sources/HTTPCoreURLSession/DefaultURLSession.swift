import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking

/// The session ``URLSessionClient/makeDefaultSession()`` makes on Linux: a `URLSession` that
/// tells its ``SessionDelegate`` of `finishTasksAndInvalidate()` and `invalidateAndCancel()`
/// before FoundationNetworking acts on them.
///
/// FoundationNetworking traps when a task is created after either call, and tells the delegate
/// only once the running tasks have finished; recorded here, the request reaches the
/// delegate first, so ``URLSessionTransport`` refuses the next send instead of trapping (see
/// ``SessionInvalidation``). No stored state but the delegate, which URLSession drops once it
/// told it: the transport still finds it here.
final class DefaultURLSession: URLSession, @unchecked Sendable {
    /// The session's delegate, kept after URLSession lets go of it.
    let packageDelegate: SessionDelegate

    init(configuration: URLSessionConfiguration, delegate: SessionDelegate) {
        packageDelegate = delegate
        super.init(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    override func finishTasksAndInvalidate() {
        if let request = packageDelegate.requestInvalidation(.finishTasks) { passOn(request) }
    }

    override func invalidateAndCancel() {
        if let request = packageDelegate.requestInvalidation(.cancelTasks) { passOn(request) }
    }

    /// Hands an invalidation the delegate recorded to URLSession.
    func passOn(_ request: SessionInvalidation.Request) {
        switch request {
        case .finishTasks: super.finishTasksAndInvalidate()
        case .cancelTasks: super.invalidateAndCancel()
        }
    }
}
#endif
