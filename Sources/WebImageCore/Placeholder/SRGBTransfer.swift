import Foundation

/// The sRGB transfer function as BlurHash's reference implementations compute it (in `Double`,
/// so that hashes match them bit for bit).
enum SRGBTransfer {
    /// Linear light 0…1 of every 8-bit sRGB value.
    static let toLinear: [Double] = (0..<256).map { byte in
        let value = Double(byte) / 255.0
        return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// The 8-bit sRGB value of linear light `value` (clamped to 0…1), rounded half up.
    static func toSRGB(_ value: Double) -> Int {
        let v = max(0.0, min(1.0, value))
        if v <= 0.0031308 { return Int(v * 12.92 * 255 + 0.5) }
        return Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }
}
