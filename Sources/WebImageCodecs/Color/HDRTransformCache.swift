import Synchronization
import WebImageCore

/// The PQ/HLG transforms built so far, one per transfer, primaries and input bit depth (a
/// handful in practice: building one costs under a millisecond of table filling). Thread-safe:
/// the map is guarded by a `Mutex`; a transform is built outside the lock.
final class HDRTransformCache: Sendable {
    /// The shared cache every decoder uses.
    static let shared = HDRTransformCache()

    private struct Key: Hashable {
        var primaries: UInt16
        var transfer: UInt16
        var bits: Int
    }

    /// Bounds the map: code points come from files, so a stream of odd ones must not grow it.
    private static let capacity = 32
    private let entries = Mutex<[Key: HDRToSDRTransform]>([:])

    /// How many transforms are cached (for tests).
    var count: Int { entries.withLock { $0.count } }

    /// Forgets every transform (see ``ColorTransformCache/removeAll()``).
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// The transform for `cicp` at `bits` bits per input code, `nil` when `cicp` is not PQ or
    /// HLG with known primaries.
    func transform(for cicp: CICP, bits: Int) -> HDRToSDRTransform? {
        guard cicp.isHDR else { return nil }
        let key = Key(primaries: cicp.colorPrimaries, transfer: cicp.transferCharacteristics, bits: bits)
        if let cached = entries.withLock({ $0[key] }) { return cached }
        guard let built = HDRToSDRTransform(cicp: cicp, inputBits: bits) else { return nil }
        entries.withLock { map in
            if map.count >= Self.capacity { map.removeAll() }
            map[key] = built
        }
        return built
    }
}

/// Whether a decode turns an HDR source to SDR (H-4), and with what.
enum HDRToSDR {
    /// The PQ/HLG transform a decode with `options` applies to a source described by `profile`
    /// whose RGB codes have `bits` bits: every PQ/HLG source unless the options ignore colour
    /// descriptions (then pixels are as stored). `nil` otherwise.
    static func transform(for profile: ColorProfile?, options: DecodeOptions, bits: Int) -> HDRToSDRTransform? {
        guard options.colorManagement != .ignore, let profile, case .cicp(let cicp) = profile.kind else { return nil }
        return HDRTransformCache.shared.transform(for: cicp, bits: bits)
    }

    /// Whether `profile` is a PQ or HLG description the library tone-maps.
    static func isToneMapped(_ profile: ColorProfile?) -> Bool {
        guard let profile, case .cicp(let cicp) = profile.kind else { return false }
        return HDRTransformCache.shared.transform(for: cicp, bits: 8) != nil
    }
}
