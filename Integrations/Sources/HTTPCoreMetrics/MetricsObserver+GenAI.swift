import CoreMetrics
import HTTPCore

/// The OpenTelemetry GenAI client metrics, recorded for each terminal event that carries an
/// LLM call (``/HTTPCore/HTTPEvent/genAI``).
///
/// - `gen_ai.client.operation.duration` (`s`): a timer of the exchange, retries included;
/// - `gen_ai.client.token.usage` (`{token}`): a value histogram, one record per count the
///   provider sent, with `gen_ai.token.type` `input` or `output`; none without usage;
/// - `gen_ai.client.operation.time_to_first_chunk` (`s`): a timer, for a streamed call whose
///   first output chunk arrived;
/// - `gen_ai.client.operation.time_per_output_chunk` (`s`): a timer, one record per interval
///   between output chunks.
///
/// Dimensions, as the convention lists them: `gen_ai.operation.name`, `gen_ai.provider.name`,
/// `gen_ai.request.model` and `gen_ai.response.model` when known, `server.address`,
/// `server.port` when known, and, except on the token usage, `error.type` when the call
/// failed. Each also has a `unit` dimension, which swift-otel takes as the instrument's unit
/// rather than as an attribute (other backends show it as a constant label).
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

    /// Records the GenAI metrics of `call`, which took `durationMilliseconds`.
    ///
    /// Handles are made per call rather than cached: an LLM call takes seconds, and the
    /// factory (swift-otel's registry, say) finds the existing instrument by its label and
    /// dimensions.
    static func record(_ call: GenAIExchange, durationMilliseconds: Double?) {
        var dimensions: [(String, String)] = [
            ("gen_ai.operation.name", call.recognition.operation.name),
            ("gen_ai.provider.name", call.recognition.provider.name),
        ]
        if let model = call.request.model { dimensions.append(("gen_ai.request.model", model)) }
        if let model = call.response.model { dimensions.append(("gen_ai.response.model", model)) }
        dimensions.append(("server.address", call.recognition.serverAddress))
        if let port = call.recognition.serverPort { dimensions.append(("server.port", String(port))) }

        if let usage = call.response.usage {
            let tokens = dimensions + [("unit", "{token}")]
            if let input = usage.inputTokens {
                Recorder(label: genAITokenUsageLabel, dimensions: tokens + [("gen_ai.token.type", "input")], aggregate: true).record(input)
            }
            if let output = usage.outputTokens {
                Recorder(label: genAITokenUsageLabel, dimensions: tokens + [("gen_ai.token.type", "output")], aggregate: true).record(output)
            }
        }

        if let errorType = call.errorType { dimensions.append(("error.type", errorType)) }
        dimensions.append(("unit", "s"))
        if let milliseconds = durationMilliseconds {
            timer(genAIOperationDurationLabel, dimensions).recordNanoseconds(nanoseconds(milliseconds / 1_000))
        }
        if call.isStreaming, let first = call.response.timeToFirstChunk {
            timer(genAITimeToFirstChunkLabel, dimensions).recordNanoseconds(nanoseconds(first))
        }
        if !call.response.outputChunkIntervals.isEmpty {
            let perChunk = timer(genAITimePerOutputChunkLabel, dimensions)
            for interval in call.response.outputChunkIntervals { perChunk.recordNanoseconds(nanoseconds(interval)) }
        }
    }

    private static func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: label, dimensions: dimensions, preferredDisplayUnit: .seconds)
    }

    private static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1_000_000_000).rounded())
    }
}
