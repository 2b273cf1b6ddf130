import Foundation
import HTTPCoreConcurrency

/// The dev-see server logs are uploaded to, changed by pairing while uploads run: a change
/// applies from the next upload on, retries included.
final class DevSeeDestination: Sendable {
    private struct State {
        var endpoint: DevSeeEndpoint
        /// `endpoint` with the API path, built once per endpoint rather than once per upload.
        var uploadURL: URL
    }

    private let apiPath: String
    private let state: Locked<State>

    init(endpoint: DevSeeEndpoint, apiPath: String) {
        self.apiPath = apiPath
        state = Locked(State(endpoint: endpoint, uploadURL: endpoint.url(path: apiPath)))
    }

    /// The server logs go to.
    var endpoint: DevSeeEndpoint {
        get { state.withLock { $0.endpoint } }
        set {
            let uploadURL = newValue.url(path: apiPath)
            state.withLock { $0 = State(endpoint: newValue, uploadURL: uploadURL) }
        }
    }

    /// Where the next upload goes.
    var uploadURL: URL {
        state.withLock { $0.uploadURL }
    }
}
