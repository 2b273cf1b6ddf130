import Foundation

/// Counts this process's allocations (`malloc`, `calloc`, `realloc`, `posix_memalign`, ...)
/// with ordo-one's malloc-interposer when the process runs with it preloaded, as
/// server-bench does:
///
/// ```
/// LD_PRELOAD=Integrations/.build/release/libMallocInterposerSwift.so \
///     .build/release/httpcore-bench --only dispatch
/// ```
///
/// This package has no dependencies, so the benchmark does not link the interposer: it finds
/// its C entry points at run time, and reports allocations as `n/a` without them (the
/// library is a product of `Integrations/IntegrationTests`, built by `swift build -c release`
/// there).
///
/// The count covers every thread, so measure with nothing else running in the process.
enum AllocationCounter {
    /// Returns `body`'s result and the allocations made while it ran; `nil` allocations when
    /// the interposer is not loaded.
    static func count<Result>(_ body: () async throws -> Result) async rethrows -> (result: Result, allocations: Int?) {
        guard let interposer = Interposer.loaded else { return (try await body(), nil) }
        interposer.reset()
        interposer.enable()
        let result: Result
        do {
            defer { interposer.disable() }
            result = try await body()
        }
        var counters = [Int64](repeating: 0, count: 6)
        counters.withUnsafeMutableBufferPointer { counter in
            interposer.statistics(counter.baseAddress!, counter.baseAddress! + 1, counter.baseAddress! + 2,
                                  counter.baseAddress! + 3, counter.baseAddress! + 4, counter.baseAddress! + 5)
        }
        // The first counter: how many allocations.
        return (result, Int(counters[0]))
    }

    /// How allocations are counted, for the report's notes.
    static var method: String {
        Interposer.loaded == nil ? "n/a (malloc-interposer not preloaded)" : "malloc-interposer (LD_PRELOAD)"
    }
}

/// The C entry points of a preloaded malloc-interposer.
private struct Interposer: Sendable {
    typealias Switch = @convention(c) () -> Void
    typealias Statistics = @convention(c) (
        UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>,
        UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>
    ) -> Void

    let enable: Switch
    let disable: Switch
    let reset: Switch
    let statistics: Statistics

    /// The interposer this process runs with, `nil` when it was not preloaded.
    static let loaded: Interposer? = {
        guard let process = dlopen(nil, RTLD_NOW) else { return nil }
        func function<Function>(_ name: String, as type: Function.Type) -> Function? {
            dlsym(process, name).map { unsafeBitCast($0, to: type) }
        }
        guard let enable = function("malloc_interposer_enable", as: Switch.self),
            let disable = function("malloc_interposer_disable", as: Switch.self),
            let reset = function("malloc_interposer_reset", as: Switch.self),
            let statistics = function("malloc_interposer_get_stats", as: Statistics.self)
        else { return nil }
        return Interposer(enable: enable, disable: disable, reset: reset, statistics: statistics)
    }()
}
