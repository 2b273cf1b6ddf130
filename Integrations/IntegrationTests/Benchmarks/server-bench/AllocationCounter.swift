import Foundation
import HTTPCoreTestPeers
import MallocInterposerSwift

/// Counts this process's allocations (`malloc`, `calloc`, `realloc`, `posix_memalign`, ...)
/// with ordo-one's malloc-interposer, the counter behind package-benchmark's `mallocCount`.
///
/// The interposer counts only when its `malloc` is the one the process calls. On Linux the
/// library is loaded with `LD_PRELOAD`, or by linking it ahead of libc: SwiftPM links the
/// `MallocInterposerSwift` product into this executable as a `NEEDED` library before
/// `libc.so.6`, so its symbols already come first and ``isCounting`` is usually true without
/// a preload. ``preloadIfNeeded()`` checks with a probe and, only when nothing was counted,
/// runs this executable again with `LD_PRELOAD` set to `libMallocInterposerSwift.so` next to
/// it in the build products. When that cannot help, allocations are reported as `n/a`.
///
/// The count covers every thread of the process between ``start()`` and ``stop()``, as
/// the CPU time does: the callers, AHC's event loops, the dispatcher's observers.
enum AllocationCounter {
    /// Set in the environment of the run with `LD_PRELOAD`, so it never re-executes twice.
    private static let preloadedMarker = "SERVER_BENCH_PRELOADED"

    /// Whether allocations are counted: a probe allocation while counting was seen.
    static let isCounting: Bool = probe()

    /// How allocations are counted, for the report: `linked`, `LD_PRELOAD` or `n/a`.
    static var method: String {
        guard isCounting else { return "n/a" }
        return ProcessInfo.processInfo.environment[preloadedMarker] == nil ? "malloc-interposer (linked ahead of libc)" : "malloc-interposer (LD_PRELOAD)"
    }

    /// Re-executes this process with the interposer preloaded when it does not count yet and
    /// the library is next to the executable; else returns and allocations are `n/a`.
    static func preloadIfNeeded() {
        #if os(Linux)
        guard !isCounting, ProcessInfo.processInfo.environment[preloadedMarker] == nil else { return }
        let executable = ChildProcess.executableURL
        let library = executable.deletingLastPathComponent().appendingPathComponent("libMallocInterposerSwift.so")
        guard FileManager.default.fileExists(atPath: library.path) else { return }
        setenv("LD_PRELOAD", library.path, 1)
        setenv(preloadedMarker, "1", 1)
        execv(executable.path, CommandLine.unsafeArgv)
        // Only reached when execv failed; measure without allocation counts.
        unsetenv("LD_PRELOAD")
        #endif
    }

    /// Starts counting from zero.
    static func start() {
        guard isCounting else { return }
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
    }

    /// Stops counting; returns the allocations since ``start()``, `nil` when not counting.
    static func stop() -> Int? {
        guard isCounting else { return nil }
        MallocInterposerSwift.unhook()
        return Int(MallocInterposerSwift.getStatistics().mallocCount)
    }

    /// Counts while allocating an array whose size the optimizer cannot know.
    private static func probe() -> Bool {
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
        keep(Array(repeating: UInt8(1), count: 4096 + CommandLine.arguments.count))
        MallocInterposerSwift.unhook()
        let counted = MallocInterposerSwift.getStatistics().mallocCount > 0
        MallocInterposerSwift.reset()
        return counted
    }

    /// Uses `value` where the optimizer cannot see, so its allocation is not removed.
    @inline(never)
    private static func keep(_ value: [UInt8]) {
        withExtendedLifetime(value) {}
    }
}
