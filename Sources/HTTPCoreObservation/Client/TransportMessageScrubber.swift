import Foundation
import HTTPCoreText

/// Removes a request URL's secrets from a transport's error message before anything else sees
/// it: the query, the userinfo and the fragment, whatever the privacy level.
///
/// A message may quote them in any spelling, so each is removed as sent, percent-decoded,
/// with `+` read as a space, re-encoded whole, with its percent escapes in either case
/// (matching ignores case), and with its slashes escaped as JSON may write them (`\/`). Each
/// query and fragment value of four characters or more is removed on its own too, in the same
/// spellings, for a message that quotes one parameter: shorter values (`page=2`) would mask
/// ordinary words and numbers of the text.
package struct TransportMessageScrubber {
    /// Shorter query and fragment values are only removed as part of the whole query.
    package static let minimumValueLength = 4

    /// What is removed, longest first, so a whole query goes before the values in it.
    package let secrets: [String]

    /// The secrets of `url`.
    package init(url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            secrets = []
            return
        }
        var found = Set<String>()
        func add(_ secret: String?) {
            guard let secret, !secret.isEmpty else { return }
            for spelling in Self.spellings(of: secret) where !spelling.isEmpty { found.insert(spelling) }
        }
        [components.percentEncodedQuery, components.percentEncodedUser, components.percentEncodedPassword, components.percentEncodedFragment]
            .forEach(add)
        let values = (components.percentEncodedQueryItems ?? []).compactMap(\.value)
            + Self.pairValues(in: components.percentEncodedFragment ?? "")
        for value in values where value.count >= Self.minimumValueLength { add(value) }
        secrets = found.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// `message` with every secret replaced by ``Redactor/mask``, cut to
    /// ``/HTTPCore/HTTPError/maximumMessageBytes``.
    package func scrubbed(_ message: String) -> String {
        // Cut long messages before searching them; whatever lies past the first cut is cut again.
        var message = UTF8Text.cut(message, toBytes: 16 * HTTPError.maximumMessageBytes)
        for secret in secrets {
            message = message.replacingOccurrences(of: secret, with: Redactor.mask, options: .caseInsensitive)
        }
        return UTF8Text.cut(message, toBytes: HTTPError.maximumMessageBytes)
    }

    /// The spellings a message may give `encoded` (as it stands in the URL).
    static func spellings(of encoded: String) -> Set<String> {
        let plusAsSpace = encoded.replacingOccurrences(of: "+", with: " ")
        var spellings: Set<String> = [encoded, plusAsSpace, encoded.replacingOccurrences(of: "+", with: "%20")]
        for decoded in [encoded.removingPercentEncoding, plusAsSpace.removingPercentEncoding].compactMap({ $0 }) {
            spellings.insert(decoded)
            if let reencoded = decoded.addingPercentEncoding(withAllowedCharacters: .alphanumerics) { spellings.insert(reencoded) }
            if let queryEncoded = decoded.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) { spellings.insert(queryEncoded) }
        }
        // A message that quotes JSON may write each `/` as `\/`.
        for spelling in spellings where spelling.contains("/") { spellings.insert(spelling.replacingOccurrences(of: "/", with: #"\/"#)) }
        return spellings
    }

    /// The values of `name=value` pairs in a fragment (`#access_token=…&state=…`).
    private static func pairValues(in fragment: String) -> [String] {
        fragment.split(whereSeparator: { $0 == "&" || $0 == ";" }).compactMap { pair in
            pair.firstIndex(of: "=").map { String(pair[pair.index(after: $0)...]) }
        }
    }
}
