import WebImage

/// One named step of the processing pipeline: it reads the context and replaces its image (or
/// its plan). Each step lives in its own file under `Pipeline/Steps/`.
struct ProcessingStep: Sendable {
    /// The step's name.
    let name: String
    /// Runs the step.
    let run: @Sendable (inout ProcessingContext) throws(ImageServiceError) -> Void
}
