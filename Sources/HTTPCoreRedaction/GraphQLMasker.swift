/// Masks the literals of GraphQL query text while keeping its structure readable.
///
/// Strings, block strings and numbers become ``Redactor/graphQLLiteralMask`` wherever they
/// appear (arguments, lists, nested input objects, defaults). Names, variable references,
/// `true`, `false`, `null`, enum values, punctuation and comments' absence of data are kept.
/// Comments are removed, since they can hold anything.
enum GraphQLMasker {
    static func maskLiterals(in query: String) -> String {
        let bytes = Array(query.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let mask = Array(Redactor.graphQLLiteralMask.utf8)
        var index = 0
        func isNameStart(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }
        func isNameContinue(_ byte: UInt8) -> Bool {
            isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func startsBlockString(_ at: Int) -> Bool {
            at + 2 < bytes.count && bytes[at] == 0x22 && bytes[at + 1] == 0x22 && bytes[at + 2] == 0x22
        }
        while index < bytes.count {
            let byte = bytes[index]
            if startsBlockString(index) {
                index += 3
                while index < bytes.count, !startsBlockString(index) {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index = min(index + 3, bytes.count)
                output.append(contentsOf: mask)
            } else if byte == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != 0x0A {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index = min(index + 1, bytes.count)
                output.append(contentsOf: mask)
            } else if byte == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else if byte == UInt8(ascii: "$") || isNameStart(byte) {
                let start = index
                index += 1
                while index < bytes.count, isNameContinue(bytes[index]) { index += 1 }
                output.append(contentsOf: bytes[start..<index])
            } else if isDigit(byte) || (byte == UInt8(ascii: "-") && index + 1 < bytes.count && isDigit(bytes[index + 1])) {
                index += 1
                while index < bytes.count,
                    isNameContinue(bytes[index]) || bytes[index] == UInt8(ascii: ".")
                        || ((bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+"))
                            && (bytes[index - 1] | 0x20) == UInt8(ascii: "e"))
                {
                    index += 1
                }
                output.append(contentsOf: mask)
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
