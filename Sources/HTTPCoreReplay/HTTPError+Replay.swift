import HTTPCore

extension HTTPError.Code {
    /// A replaying transport had no recorded exchange for the request: none matched, or every
    /// match was answered already. The message names the closest recorded exchange and why it
    /// did not match. Nothing went to the network.
    public static let notRecorded = HTTPError.Code("not_recorded")

    /// A fixture could not be read or saved: the message names the file, the entry and the
    /// field, and the rule it broke (a HAR file without `log.entries`, an entry without a
    /// `request.url`, a recording whose text the redactor would still mask).
    public static let invalidFixture = HTTPError.Code("invalid_fixture")
}
