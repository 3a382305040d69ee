import WebImage

extension ProcessingStep {
    /// `rotate`: turns the image by a multiple of 90° (after the decoder's EXIF orientation).
    static let rotate = ProcessingStep(name: "rotate") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard context.options.rotate != 0 else { return }
        guard let rotated = RotateTransformer(angle: Double(context.options.rotate)).transform(context.image, key: "") else {
            throw .unprocessable("rotation failed")
        }
        context.image = rotated
    }
}
