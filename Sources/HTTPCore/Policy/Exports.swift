// The redaction engine is part of the contract's vocabulary: `HTTPCorePolicy.redactor` is a
// `Redactor`, so `import HTTPCore` brings it.
@_exported import HTTPCoreRedaction
