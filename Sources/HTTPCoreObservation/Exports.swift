// Observation is built on the contract and brings it: `import HTTPCoreObservation` is enough
// to observe, and to send.
@_exported import HTTPCore
