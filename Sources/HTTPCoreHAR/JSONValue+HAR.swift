import HTTPCoreText

extension JSONValue {
    /// A number given in thousandths (milliseconds from microseconds), written with up to
    /// three decimals: `12345` is `12.345`, `-1000` is `-1`. Exact, unlike a `Double`'s text.
    static func thousandths(_ value: Int) -> JSONValue {
        .number(Double(value) / 1000, text: decimal(thousandths: value))
    }

    /// A `{"name": ..., "value": ...}` object, the shape of HAR headers, cookies and query items.
    static func nameValue(_ name: String, _ value: String) -> JSONValue {
        ["name": .string(name), "value": .string(value)]
    }

    /// A HAR document's bytes: UTF-8 JSON indented by two spaces per level, with members in
    /// the order they were built, so the same exchanges always give the same bytes, with
    /// `version` before `entries` as people expect.
    var harBytes: [UInt8] {
        serialized(style: .indented) + [UInt8(ascii: "\n")]
    }

    /// `value / 1000` in decimal, without trailing zeros: `12.3`, `0.045`, `-1`.
    static func decimal(thousandths value: Int) -> String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        let whole = magnitude / 1000
        var fraction = String(magnitude % 1000)
        guard fraction != "0" else { return sign + String(whole) }
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(whole).\(fraction)"
    }
}
