import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionDelegate {
    /// Registers a WebSocket task, whose `opened` is called once its handshake is answered;
    /// call before `resume()`.
    func register(_ task: URLSessionWebSocketTask, opened: @escaping @Sendable () -> Void) {
        webSocketOpenings.withLock { $0[task.taskIdentifier] = opened }
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        webSocketOpenings.withLock { $0.removeValue(forKey: webSocketTask.taskIdentifier) }?()
    }

    /// The close is observed by the socket's calls (``URLSessionWebSocket``), which see the
    /// task's close code; FoundationNetworking requires this method.
    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {}
}
