import CoreMetrics
import HTTPCore
import HTTPCoreGenAI

/// The OpenTelemetry GenAI client metrics, recorded for each terminal event that carries an
/// LLM call (`event.genAI`).
///
/// - `gen_ai.client.operation.duration` (`s`): a timer of the exchange, retries included;
/// - `gen_ai.client.token.usage` (`{token}`): a value histogram, one record per count the
///   provider sent, with `gen_ai.token.type` `input` or `output`; none without usage;
/// - `gen_ai.client.operation.time_to_first_chunk` (`s`): a timer, for a streamed call whose
///   first output chunk arrived;
/// - `gen_ai.client.operation.time_per_output_chunk` (`s`): a timer, one record per interval
///   between output chunks.
///
/// Dimensions, as the convention lists them, taken from the call's
/// ``/HTTPCoreGenAI/GenAIExchange/attributes``: `gen_ai.provider.name`, `gen_ai.operation.name`,
/// `gen_ai.request.model` and `gen_ai.response.model` when known, `server.address`,
/// `server.port` when known, and, except on the token usage, `error.type` when the call
/// failed. Each also has a `unit` dimension, which swift-otel takes as the instrument's unit
/// rather than as an attribute (other backends show it as a constant label).
///
/// Their handles are cached with the HTTP metrics' and under the same limit
/// (``init(maximumCachedDimensionSets:maximumActiveExchanges:)``): a set of dimensions beyond
/// it, with a model name not seen before say, is recorded with handles made for the call.
///
/// swift-metrics has no bucket boundaries; give swift-otel the convention's for these labels:
///
/// ```swift
/// var configuration = OTel.Configuration.default
/// let seconds = MetricsObserver.genAIDurationBucketBoundaries.map { Duration.nanoseconds(Int64($0 * 1e9)) }
/// for label in MetricsObserver.genAIDurationLabels {
///     configuration.metrics.durationHistogramBuckets[label] = seconds
/// }
/// configuration.metrics.valueHistogramBuckets[MetricsObserver.genAITokenUsageLabel] =
///     MetricsObserver.genAITokenUsageBucketBoundaries
/// ```
extension MetricsObserver {
    /// The `gen_ai.client.operation.duration` timer's label.
    public static let genAIOperationDurationLabel = "gen_ai.client.operation.duration"
    /// The `gen_ai.client.token.usage` recorder's label.
    public static let genAITokenUsageLabel = "gen_ai.client.token.usage"
    /// The `gen_ai.client.operation.time_to_first_chunk` timer's label.
    public static let genAITimeToFirstChunkLabel = "gen_ai.client.operation.time_to_first_chunk"
    /// The `gen_ai.client.operation.time_per_output_chunk` timer's label.
    public static let genAITimePerOutputChunkLabel = "gen_ai.client.operation.time_per_output_chunk"
    /// The labels of the three GenAI timers, which all take ``genAIDurationBucketBoundaries``.
    public static let genAIDurationLabels = [genAIOperationDurationLabel, genAITimeToFirstChunkLabel, genAITimePerOutputChunkLabel]

    /// The bucket boundaries, in tokens, that the GenAI convention gives `gen_ai.client.token.usage`:
    /// powers of four from 1 to 67,108,864.
    public static let genAITokenUsageBucketBoundaries: [Double] = [
        1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ]
    /// The bucket boundaries, in seconds, that the GenAI convention gives its duration metrics:
    /// doublings from 10 ms to 81.92 s.
    public static let genAIDurationBucketBoundaries: [Double] = [
        0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ]

    /// The attributes of ``/HTTPCoreGenAI/GenAIExchange/attributes`` that the convention puts on the
    /// GenAI client metrics, besides `error.type`.
    static let genAIMetricAttributeNames: Set<String> = [
        "gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "gen_ai.response.model", "server.address", "server.port",
    ]

    /// The dimensions of `call`'s GenAI metrics: its attributes the convention puts on them, in
    /// their order, and its `error.type`.
    static func genAIDimensions(of call: GenAIExchange) -> MetricsHandleCache.GenAIDimensions {
        var shared: [MetricsHandleCache.Dimension] = []
        var errorType: String?
        for attribute in call.attributes {
            let (name, value) = (attribute.name, attribute.value)
            if name == "error.type" {
                errorType = value.text
            } else if genAIMetricAttributeNames.contains(name) {
                shared.append(MetricsHandleCache.Dimension(name: name, value: value.text))
            }
        }
        return MetricsHandleCache.GenAIDimensions(shared: shared, errorType: errorType)
    }

    /// Records the GenAI metrics of `call`, which took `durationMilliseconds`, with the handles
    /// its dimensions have in the observer's cache.
    func record(_ call: GenAIExchange, durationMilliseconds: Double?) {
        let dimensions = Self.genAIDimensions(of: call)
        let shared = dimensions.shared.map { ($0.name, $0.value) }

        func tokenUsage(_ type: String) -> Recorder {
            Recorder(label: Self.genAITokenUsageLabel, dimensions: shared + [("unit", "{token}"), ("gen_ai.token.type", type)], aggregate: true)
        }
        if let input = call.inputTokens {
            handles.genAIHandle(\.inputTokenUsage, of: dimensions) { tokenUsage("input") }.record(input)
        }
        if let output = call.outputTokens {
            handles.genAIHandle(\.outputTokenUsage, of: dimensions) { tokenUsage("output") }.record(output)
        }

        let timed = shared + (dimensions.errorType.map { [("error.type", $0)] } ?? []) + [("unit", "s")]
        func timer(_ label: String) -> CoreMetrics.Timer {
            CoreMetrics.Timer(label: label, dimensions: timed, preferredDisplayUnit: .seconds)
        }
        if let milliseconds = durationMilliseconds {
            handles.genAIHandle(\.operationDuration, of: dimensions) { timer(Self.genAIOperationDurationLabel) }
                .recordNanoseconds(Self.nanoseconds(milliseconds / 1_000))
        }
        // Present on a streamed call only, as the convention asks.
        if case .double(let first)? = call.attributes.first(where: { $0.name == "gen_ai.response.time_to_first_chunk" })?.value {
            handles.genAIHandle(\.timeToFirstChunk, of: dimensions) { timer(Self.genAITimeToFirstChunkLabel) }
                .recordNanoseconds(Self.nanoseconds(first))
        }
        if !call.outputChunkIntervals.isEmpty {
            let perChunk = handles.genAIHandle(\.timePerOutputChunk, of: dimensions) { timer(Self.genAITimePerOutputChunkLabel) }
            for interval in call.outputChunkIntervals { perChunk.recordNanoseconds(Self.nanoseconds(interval)) }
        }
    }

    private static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1_000_000_000).rounded())
    }
}
