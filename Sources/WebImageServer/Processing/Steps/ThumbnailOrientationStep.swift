import WebImage

extension ProcessingStep {
    /// `enforce_thumbnail`: turns an embedded thumbnail upright by the main image's EXIF
    /// orientation (``ProcessingContext/pendingOrientation``), as the decoder turns the main
    /// image; nothing for any other source.
    static let thumbnailOrientation = ProcessingStep(name: "thumbnail-orientation") { (context: inout ProcessingContext) throws(ImageServiceError) in
        let orientation = context.pendingOrientation
        guard orientation != .up else { return }
        context.image = context.image.mappingFrames { $0.applying(orientation) } ?? context.image
    }
}
