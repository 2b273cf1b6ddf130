import HTTPCore

// HTTPCore's names that Vapor also brings, declared once for the whole target. Vapor
// re-exports AsyncHTTPClient's `HTTPClient` and NIOHTTP1's `HTTPHeaders` and `HTTPMethod` with
// scoped imports (`@_exported import class AsyncHTTPClient.HTTPClient`), which Swift prefers to
// HTTPCore's without saying so. A declaration of the target itself comes before every import,
// so with these each unqualified name in the target is HTTPCore's; Vapor's are
// `Vapor.HTTPHeaders`, `Vapor.HTTPMethod` and `Vapor.HTTPClient` here. An internal alias cannot
// appear in a public signature, so a public declaration writes HTTPCore's type with its
// module. The pattern is in HTTPCore's "Name clashes" article. The target also imports
// swift-http-types, whose fields check the upstream's headers (`passedOn(_:)`), so its
// `HTTPRequest` and `HTTPResponse` are declared HTTPCore's here too.
typealias HTTPRequest = HTTPCore.HTTPRequest
typealias HTTPResponse = HTTPCore.HTTPResponse
typealias HTTPClient = HTTPCore.HTTPClient
typealias HTTPHeaders = HTTPCore.HTTPHeaders
typealias HTTPMethod = HTTPCore.HTTPMethod
