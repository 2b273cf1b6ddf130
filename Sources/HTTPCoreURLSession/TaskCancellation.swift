import Foundation
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cancels URLSession tasks so that FoundationNetworking never receives a redirect decision
/// for a task it has cancelled.
///
/// FoundationNetworking asks the session delegate about a redirect, and traps when the answer
/// arrives after a `cancel()` ("Received callback for HTTP redirection, but we're not waiting
/// for it"), taking the process down: a caller's timeout or cancellation that meets a redirect
/// did (found by the request fuzz test). So a cancel marks its task first, and
/// ``SessionDelegate`` drops the decision for a marked task, which `cancel()` ends with -999.
/// Both happen under one lock, so a decision handed over before the mark reaches URLSession
/// before the cancel does.
enum TaskCancellation {
    /// A cancelled task, held weakly so that a mark never outlives its task.
    private struct Mark: @unchecked Sendable {  // Only read and written under `marks`' lock.
        weak var task: URLSessionTask?
    }

    private static let marks = Locked<[ObjectIdentifier: Mark]>([:])

    /// Marks `task` as cancelled, then cancels it.
    static func cancel(_ task: URLSessionTask) {
        #if canImport(FoundationNetworking)
        marks.withLock { marks in
            marks = marks.filter { $0.value.task != nil }
            marks[ObjectIdentifier(task)] = Mark(task: task)
        }
        #endif
        task.cancel()
    }

    /// Runs `handOver`, which hands a redirect decision to URLSession, unless `task` was
    /// cancelled.
    static func decideRedirect(of task: URLSessionTask, _ handOver: () -> Void) {
        #if canImport(FoundationNetworking)
        marks.withLock { marks in
            guard marks[ObjectIdentifier(task)]?.task !== task else { return }
            handOver()
        }
        #else
        handOver()
        #endif
    }
}
