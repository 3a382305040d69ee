// Apple platforms only (SPEC B-3): a SwiftUI view over the async pipeline.
#if canImport(SwiftUI) && canImport(CoreGraphics)
    import CoreGraphics
    import SwiftUI
    import WebImage

    /// Shows the image at `url`, loading it through the pipeline, with `placeholder` until then.
    /// The load is cancelled when the view disappears or the URL changes (SPEC M-10).
    public struct WebImageView<Placeholder: View>: View {
        private let url: URL?
        private let options: WebImageOptions
        private let placeholder: Placeholder
        @State private var loaded: CGImage?

        public init(url: URL?, options: WebImageOptions = [], @ViewBuilder placeholder: () -> Placeholder) {
            self.url = url
            self.options = options
            self.placeholder = placeholder()
        }

        public var body: some View {
            Group {
                if let loaded {
                    SwiftUI.Image(decorative: loaded, scale: 1).resizable().scaledToFit()
                } else {
                    placeholder
                }
            }
            .task(id: url) {
                loaded = nil
                guard let url else { return }
                if let result = try? await ImageManager.shared.loadImage(with: url, options: options) {
                    loaded = result.image?.makeCGImage()
                }
            }
        }
    }
#endif
