/// BlurHash's base-83 digits.
enum Base83 {
    /// The 83 characters, digit value = index.
    static let alphabet: [UInt8] = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// Digit value of every ASCII byte, -1 for bytes outside the alphabet.
    static let values: [Int] = {
        var table = [Int](repeating: -1, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = index }
        return table
    }()

    /// Appends `value` as exactly `length` digits, most significant first (`value` must be
    /// below 83^length).
    static func append(_ value: Int, length: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            out.append(alphabet[(value / divisor) % 83])
            divisor = max(1, divisor / 83)
        }
    }

    /// The value of `digits`, or `nil` when one is not a base-83 digit.
    static func decode(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            let digit = values[Int(byte)]
            if digit < 0 { return nil }
            value = value * 83 + digit
        }
        return value
    }
}
