extension OptionArguments {
    /// The largest megapixel count `max_src_resolution` and `max_animation_frame_resolution`
    /// accept (a larger one could not lower any limit a service may have).
    static let maximumLimitMegapixels = 100_000.0
    /// The largest count or size the integer limits accept.
    static let maximumLimitValue = 1 << 40

    /// A limit in megapixels, greater than 0, returned in pixels; 0 only when `allowZero`
    /// (`nil`: imgproxy's 0 turns the check off, which here means the service's limit).
    func megapixelLimit(allowZero: Bool) throws(ImageServiceError) -> Int? {
        try requireCount(1...1)
        let text = values[0]
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(text), value.isFinite, value >= 0, value <= Self.maximumLimitMegapixels else {
            throw bad("'\(values[0])' is not a number of megapixels from 0 to \(Int(Self.maximumLimitMegapixels))")
        }
        if value == 0 {
            guard allowZero else { throw bad("the limit must be greater than 0") }
            return nil
        }
        return max(1, Int((value * 1_000_000).rounded(.down)))
    }

    /// A whole-number limit, greater than 0; 0 only when `allowZero` (`nil`: the service's limit).
    func countLimit(allowZero: Bool) throws(ImageServiceError) -> Int? {
        try requireCount(1...1)
        guard let value = Int(values[0]), value >= 0, value <= Self.maximumLimitValue else {
            throw bad("'\(values[0])' is not a whole number from 0 to \(Self.maximumLimitValue)")
        }
        if value == 0 {
            guard allowZero else { throw bad("the limit must be greater than 0") }
            return nil
        }
        return value
    }
}
