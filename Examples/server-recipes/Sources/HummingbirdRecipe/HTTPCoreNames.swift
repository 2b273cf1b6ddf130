import HTTPCore

// HTTPCore's names that Hummingbird also brings, declared once for the whole target.
// Hummingbird re-exports swift-http-types' `HTTPRequest` and `HTTPResponse` with scoped
// imports (`@_exported import struct HTTPTypes.HTTPRequest`), which Swift prefers to HTTPCore's
// without saying so, and declares an `HTTPError` of its own. A declaration of the target itself
// comes before every import, so with these each unqualified name in the target is HTTPCore's;
// swift-http-types' types are `HTTPTypes.HTTPRequest` and `HTTPTypes.HTTPResponse` here, and
// Hummingbird's error `Hummingbird.HTTPError`. An internal alias cannot appear in a public
// signature, so a public declaration writes HTTPCore's type with its module. The pattern is in
// HTTPCore's "Name clashes" article.
typealias HTTPRequest = HTTPCore.HTTPRequest
typealias HTTPResponse = HTTPCore.HTTPResponse
typealias HTTPError = HTTPCore.HTTPError
