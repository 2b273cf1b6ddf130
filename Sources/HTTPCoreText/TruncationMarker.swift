/// The package's one mark of a text cut short: what every output appends where it left text
/// out for its size, so a reader learns one sign for "there was more".
///
/// A cut that knows how much it left out says so (`…[truncated, 120 more bytes]`); one that
/// does not, or whose room is too small for the count (a field of a few hundred bytes, the
/// last place of a capped list), ends in the ellipsis alone.
package enum TruncationMarker {
    /// The ellipsis that ends a cut: `…`.
    package static let ellipsis = "…"

    /// The mark that ends a text cut short of `omittedByteCount` more bytes:
    /// `…[truncated, 120 more bytes]`.
    package static func omitting(_ omittedByteCount: Int) -> String {
        "\(ellipsis)[truncated, \(omittedByteCount) more bytes]"
    }
}
