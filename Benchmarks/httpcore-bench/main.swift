// Placeholder replaced by the benchmark.
print("httpcore-bench")
