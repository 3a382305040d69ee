import WebImageCore

/// The coders registered at start-up, lowest priority first (the last is asked first).
public enum BuiltInCoders {
    /// A fresh list of the built-in coders.
    public static var all: [any ImageCoder] {
        [
            // Each codec adds its coder here.
            PDFCoder(),
            SVGCoder(),
            TIFFCoder(),
            BMPCoder(),
            ICOCoder(),
            JXLCoder(),
            HEIFCoder(),
            AVIFCoder(),
            WebPCoder(),
            JPEGCoder(),
            GIFCoder(),
            PNGCoder(),
        ]
    }
}

extension CodersManager {
    /// The shared manager with the built-in coders (SPEC C-2). Add or remove coders at run time.
    public static let shared = CodersManager(coders: BuiltInCoders.all)
}
