import Foundation
import HTTPCoreConcurrency

/// The parsed host and redacted fields that the request records of one exchange share for the
/// parts of their requests that are equal (``RequestRecord/Parts``): an attempt whose
/// middlewares added headers shares the caller's request's URL, host and body, so each is
/// parsed or redacted once, not once per record, without one record keeping another (and its
/// body) alive.
///
/// Each field is valid for every record that shares its part, since those parts are equal; it
/// is computed by whichever of them reads it first.
final class SharedRequestFields: @unchecked Sendable {
    /// The fields computed so far: read and written only under ``LockStripes``' lock for this
    /// object, which makes it `@unchecked Sendable`.
    var fields: RequestRecord.Fields

    /// Fields seeded with `fields`, those that the record which makes them computed already.
    init(fields: RequestRecord.Fields) {
        self.fields = fields
    }
}
