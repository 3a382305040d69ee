import WebImage

extension ProcessingStep {
    /// `flip`: mirrors every frame left ↔ right and/or top ↔ bottom after `rotate`
    /// (``FlipTransformer``), before the geometry is planned, so gravity, crop and trim refer to
    /// the flipped image as in imgproxy. A reduced decode's axes account for it
    /// (``ShrinkOnLoad``).
    static let flip = ProcessingStep(name: "flip") { (context: inout ProcessingContext) throws(ImageServiceError) in
        let options = context.options
        guard options.flipHorizontal || options.flipVertical else { return }
        guard let flipped = FlipTransformer(horizontal: options.flipHorizontal, vertical: options.flipVertical).transform(context.image, key: "") else {
            throw .unprocessable("flip failed")
        }
        context.image = flipped
    }
}
