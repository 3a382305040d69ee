import CPoppler
import CRSVG
import Foundation
import WebImageCore

/// The PDF decoder over poppler-glib, as SDWebImagePDFCoder: one page drawn with cairo at its
/// own size (1 point = 1 pixel) or straight at the requested
/// ``/WebImageCore/DecodeOptions/thumbnailPixelSize`` (larger or smaller; aspect ratio kept
/// unless ``/WebImageCore/DecodeOptions/preserveAspectRatio`` is off).
///
/// - The page is ``/WebImageCore/DecodeOptions/pageIndex`` when the options set one (through
///   the pipeline: the `imagePageIndex` context value, cached under a key of its own), else
///   the coder's ``pageIndex`` (the first page by default).
/// - Pages are drawn on white paper (opaque), as PDF viewers show them.
/// - ``readMetadata(_:)`` reports the number of pages as the frame count (a PDF is not an
///   animation).
/// - An encrypted document is `unsupportedFormat` (no password is ever tried); a damaged one,
///   or a page index past the end, is `badImageData`. The drawing size is checked against the
///   decode limits before pixel memory is allocated (SPEC C-6).
/// - PDF is not encoded.
///
/// The coder holds only its page index; every call opens its own poppler document over a
/// private copy of the bytes.
public struct PDFCoder: ImageCoder {
    /// The page drawn when the decode options name none (0 = the first).
    public let pageIndex: Int

    /// A PDF coder drawing page `pageIndex` (0 = the first page).
    public init(pageIndex: Int = 0) {
        self.pageIndex = max(0, pageIndex)
    }

    /// Whether `data` starts with `%PDF`.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .pdf
    }

    /// Draws page ``/WebImageCore/DecodeOptions/pageIndex`` of the options, else ``pageIndex``.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` (also for a page past the
    ///   end), `unsupportedFormat` (encrypted) or `imageTooLarge`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let document = try PDFDocument(data)
        let page = try document.page(options.pageIndex ?? pageIndex)
        let size = CairoPixels.renderSize(intrinsic: page.size, options: options)
        try options.limits.check(canvas: size)
        return Image(pixels: try page.render(size: size), scale: options.imageScale, format: .pdf, hasAlpha: false)
    }

    /// Reads the size of page ``pageIndex`` (points as pixels, rounded up) and the page count
    /// (as `frameCount`), without drawing.
    /// - Throws: `badImageData` or `unsupportedFormat` (encrypted).
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let document = try PDFDocument(data)
        let page = try document.page(pageIndex)
        return ImageMetadata(
            format: .pdf, pixelSize: CairoPixels.renderSize(intrinsic: page.size, options: .default),
            frameCount: document.pageCount, isAnimated: false, hasAlpha: false)
    }
}

/// An open poppler document. Not thread-safe: one owner at a time.
final class PDFDocument {
    private let document: OpaquePointer
    /// Number of pages.
    let pageCount: Int

    init(_ data: Data) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty PDF data") }
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler_document_new_from_bytes(bytes, nil, &error) else {
            let encrypted = error.map { $0.pointee.domain == poppler_error_quark() && $0.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) } ?? false
            let message = GLibError.take(error) ?? "unreadable document"
            if encrypted { throw WebImageError.unsupportedFormat(.pdf, reason: "the document is encrypted (\(message))") }
            throw WebImageError.badImageData(reason: "PDF: \(message)")
        }
        GLibError.take(error)
        let pageCount = Int(poppler_document_get_n_pages(document))
        guard pageCount > 0 else {
            g_object_unref(UnsafeMutableRawPointer(document))
            throw WebImageError.badImageData(reason: "PDF: the document has no pages")
        }
        self.document = document
        self.pageCount = pageCount
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(document))
    }

    /// Page `index`.
    /// - Throws: `badImageData` when there is no such page or it has no usable size.
    func page(_ index: Int) throws -> PDFPage {
        guard index >= 0, index < pageCount, let page = poppler_document_get_page(document, Int32(index)) else {
            throw WebImageError.badImageData(reason: "PDF: page \(index) out of range 0..<\(pageCount)")
        }
        return try PDFPage(page, owner: self)
    }
}

/// One page of an open document (keeps the document alive).
final class PDFPage {
    private let page: OpaquePointer
    private let owner: PDFDocument
    /// The page size in points (rotation applied).
    let size: (width: Double, height: Double)

    fileprivate init(_ page: OpaquePointer, owner: PDFDocument) throws {
        self.page = page
        self.owner = owner
        var width = 0.0
        var height = 0.0
        poppler_page_get_size(page, &width, &height)
        size = (width, height)
        guard width.isFinite, height.isFinite, width >= 1, height >= 1 else {
            throw WebImageError.badImageData(reason: "PDF: the page size \(width)x\(height) is unusable")
        }
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(page))
    }

    /// Draws the page on white, scaled to exactly `pixels` (checked against the limits).
    func render(size pixels: PixelSize) throws -> PixelBuffer {
        try PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
            out.initialize(repeating: 255)
            let surface = cairo_image_surface_create_for_data(
                out.baseAddress, CAIRO_FORMAT_ARGB32, Int32(pixels.width), Int32(pixels.height), Int32(pixels.width * 4))
            defer { cairo_surface_destroy(surface) }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
                throw WebImageError.imageTooLarge(reason: "cairo cannot draw \(pixels) pixels")
            }
            let context = cairo_create(surface)
            defer { cairo_destroy(context) }
            cairo_scale(context, Double(pixels.width) / size.width, Double(pixels.height) / size.height)
            poppler_page_render(page, context)
            cairo_surface_flush(surface)
            guard cairo_status(context) == CAIRO_STATUS_SUCCESS else {
                throw WebImageError.badImageData(reason: "PDF: the page could not be drawn")
            }
            CairoPixels.convertToStraightRGBA(out)
        }
    }
}
