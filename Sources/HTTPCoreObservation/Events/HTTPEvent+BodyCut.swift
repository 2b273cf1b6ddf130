import Foundation

extension HTTPEvent {
    /// This event with the raw bodies of its request and response cut to their first bytes,
    /// copied, and everything else shared: what a sink queues instead of an event that would
    /// keep a large body alive, at the cost of a copy bounded by the cut, whatever the bodies'
    /// sizes.
    ///
    /// The cut is at `maxBytes` or at the policy's capture cap, whichever is less. Nothing is
    /// redacted: the cut event's views redact when first read, on the sink's worker, as the
    /// original's would, and its byte counts are the original's. Views show no more than the
    /// capture cap of a body, so a cut at the cap changes none of them; a cut below it reads as
    /// truncated, and its redacted view is the original's for every value that ends before the
    /// cut. A streamed response's body is kept whole: the policy's interpreters read the
    /// stream's answer from it, and it holds no more than the policy captured. An event with no
    /// body to cut is returned as it is.
    ///
    /// `nil` for an event with attachments: what an interpreter attached may read the raw
    /// request when first asked (an LLM call's facts), and so keep it alive whatever the cut.
    package func withBodiesCut(to maxBytes: Int = .max) -> HTTPEvent? {
        guard storage.attachments.isEmpty else { return nil }
        let limit = min(max(0, maxBytes), requestRecord.policy.capturedBodyBytes)
        let request = requestRecord.cuttingBody(to: limit)
        let response = isStreamed ? responseRecord : responseRecord?.cuttingBody(to: limit)
        guard request !== requestRecord || response !== responseRecord else { return self }
        return HTTPEvent(storage: Storage(
            name: name, timestamp: timestamp, attempt: attempt, startedAt: startedAt, endedAt: endedAt,
            durationMilliseconds: durationMilliseconds, attemptTiming: attemptTiming, errorRecord: errorRecord,
            requestRecord: request, responseRecord: response, messageRecord: messageRecord,
            streamSummary: storage.streamSummary, attachments: storage.attachments
        ))
    }

    private init(storage: Storage) {
        self.storage = storage
    }
}

extension RequestRecord {
    /// This record with its request's body cut to `maxBytes` (a copy of its first bytes), and
    /// the body's byte count kept; itself when the body is no longer.
    func cuttingBody(to maxBytes: Int) -> RequestRecord {
        guard let body = request.body, body.count > maxBytes else { return self }
        var cut = request
        cut.body = Self.copy(of: body, upTo: maxBytes)
        return RequestRecord(
            request: cut, policy: sharedPolicy, correlation: correlation, isStreamed: isStreamed,
            streamedBodyByteCount: bodyByteCount
        )
    }

    /// The first `maxBytes` bytes of `body` in storage of their own: a slice of `Data`, or a
    /// `Data` made from one, would share the whole body's and keep it alive.
    static func copy(of body: Data, upTo maxBytes: Int) -> Data {
        body.prefix(maxBytes).withUnsafeBytes { Data($0) }
    }
}

extension ResponseRecord {
    /// This record with its response's body cut to `maxBytes` (a copy of its first bytes), and
    /// the body's byte count kept; itself when the body is no longer.
    func cuttingBody(to maxBytes: Int) -> ResponseRecord {
        guard response.body.count > maxBytes else { return self }
        var cut = response
        cut.body = RequestRecord.copy(of: response.body, upTo: maxBytes)
        return ResponseRecord(response: cut, policy: sharedPolicy, streamedBodyByteCount: bodyByteCount)
    }
}
