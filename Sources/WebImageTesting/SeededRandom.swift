/// A small deterministic generator (SplitMix64) for reproducible mutation and fuzz runs: the
/// same seed gives the same sequence on every machine, unlike `SystemRandomNumberGenerator`.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (0 when `bound` is not positive).
    public mutating func below(_ bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }
}

extension SeededRandom {
    /// Applies 1…`maxEdits` random edits to `bytes` — overwrite a byte, flip one bit, delete a
    /// run of up to 16 bytes, or insert a byte — for mutation tests. Never leaves it empty.
    public mutating func mutate(_ bytes: inout [UInt8], maxEdits: Int = 8) {
        if bytes.isEmpty { bytes = [0] }
        for _ in 0..<(1 + below(maxEdits)) {
            let position = below(bytes.count)
            switch below(4) {
            case 0: bytes[position] = UInt8(truncatingIfNeeded: next())
            case 1: bytes[position] ^= 1 << UInt8(below(8))
            case 2: bytes.removeSubrange(position..<min(bytes.count, position + 1 + below(16)))
            default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: position)
            }
            if bytes.isEmpty { bytes = [0] }
        }
    }
}
