import CTIFF
import Foundation
import WebImageCore

/// One page of a TIFF file: a directory of the main chain that is not a reduced-resolution
/// copy of another.
struct TIFFPage {
    /// The directory's index in the chain.
    let directory: tdir_t
    /// The stored size (before orientation).
    let size: PixelSize
    /// The orientation tag (EXIF numbering; `.up` when absent).
    let orientation: ImageOrientation
    /// Whether the page has an extra (alpha) sample.
    let hasAlpha: Bool
    /// Whether the page's colour is CMYK (`Photometric` 5 with `InkSet` 1), in any layout.
    let isCMYK: Bool
    /// Reduced-resolution copies of the page (`SubfileType` 1 directories that follow it),
    /// each smaller than the page.
    var reduced: [(directory: tdir_t, size: PixelSize)] = []

    /// The directory to decode for frames of `target` size (as shown): the smallest reduced
    /// copy that still covers `target`, else the page itself.
    func source(for target: PixelSize) -> (directory: tdir_t, size: PixelSize) {
        var best = (directory: directory, size: size)
        for copy in reduced {
            let shown = orientation.swapsDimensions ? PixelSize(width: copy.size.height, height: copy.size.width) : copy.size
            if shown.width >= target.width, shown.height >= target.height, copy.size.pixelCount < best.size.pixelCount {
                best = copy
            }
        }
        return best
    }
}

extension TIFFMemoryFile {
    /// The pages of the file, read from the directories only (no strip or tile is read), each
    /// page's size checked against `limits` and the page count against its frame limit.
    /// - Parameter maxPages: stop listing after this many pages (1 for the first page only).
    /// - Throws: `badImageData` when the first directory has no image, `imageTooLarge` over a limit.
    func pages(limits: DecodeLimits, maxPages: Int = .max) throws -> [TIFFPage] {
        var pages: [TIFFPage] = []
        // Reduced-resolution directories are not pages; they are bounded too.
        var directoriesLeft = 2 * limits.maxFrameCount + 16
        if TIFFCurrentDirectory(handle) != 0 {
            guard TIFFSetDirectory(handle, 0) == 1 else { throw failure("the first directory is unreadable") }
        }
        repeat {
            let subfileType = uint32(TIFFTAG_SUBFILETYPE) ?? 0
            if subfileType & UInt32(FILETYPE_REDUCEDIMAGE) == 0 || pages.isEmpty {
                let page = try currentPage()
                try limits.check(canvas: page.size)
                pages.append(page)
                try limits.check(frames: pages.count, of: pages[0].size)
            } else if let copy = try? currentPage(), copy.size.width > 0, copy.size.height > 0,
                copy.size.width <= pages[pages.count - 1].size.width, copy.size.height <= pages[pages.count - 1].size.height
            {
                pages[pages.count - 1].reduced.append((copy.directory, copy.size))
            }
            directoriesLeft -= 1
        } while pages.count < maxPages && directoriesLeft > 0 && TIFFReadDirectory(handle) == 1
        guard !pages.isEmpty else { throw failure("no image in the file") }
        return pages
    }

    /// Makes `directory` the current one: forward by reading the next directories (one step
    /// for sequential access), backward by starting from the first.
    func select(_ directory: tdir_t) throws {
        var current = TIFFCurrentDirectory(handle)
        if current > directory {
            guard TIFFSetDirectory(handle, directory) == 1 else { throw failure("directory \(directory) is unreadable") }
            return
        }
        while current < directory {
            guard TIFFReadDirectory(handle) == 1 else { throw failure("directory \(directory) is unreadable") }
            current += 1
        }
    }

    /// Decodes `page` for frames of `target` size (as shown): from its smallest reduced copy
    /// that covers `target`, else the page itself. Contiguous 8-bit CMYK is converted with
    /// `cmykProfile` when one is given (whole, not shrunk while reading); without one, and for
    /// other CMYK layouts, libtiff's naive formula applies.
    func decode(_ page: TIFFPage, for target: PixelSize, cmykProfile: ColorProfile?) throws -> PixelBuffer {
        let source = page.source(for: target)
        try select(source.directory)
        if let cmykProfile, isPlainCMYK8() { return try decodeCMYK8(size: source.size, profile: cmykProfile) }
        // Shrink while reading when the source is at least twice the target both ways.
        let shown = page.orientation.swapsDimensions ? PixelSize(width: source.size.height, height: source.size.width) : source.size
        let factor = min(shown.width / max(1, target.width), shown.height / max(1, target.height))
        if factor >= 2, let reduced = try decodeCurrentShrinking(size: source.size, by: factor) { return reduced }
        return try decodeCurrent(size: source.size)
    }

    private func currentPage() throws -> TIFFPage {
        guard let width = uint32(TIFFTAG_IMAGEWIDTH), let height = uint32(TIFFTAG_IMAGELENGTH) else {
            throw failure("a directory has no image size")
        }
        var extraCount: UInt16 = 0
        var extraKinds: UnsafeMutablePointer<UInt16>?
        let found = withUnsafeMutablePointer(to: &extraCount) { count in
            withUnsafeMutablePointer(to: &extraKinds) { kinds in
                withVaList([count, kinds]) { TIFFVGetFieldDefaulted(handle, UInt32(TIFFTAG_EXTRASAMPLES), $0) }
            }
        }
        let orientation = Int(uint16(TIFFTAG_ORIENTATION) ?? 1)
        let isCMYK =
            uint16(TIFFTAG_PHOTOMETRIC).map { Int32($0) == PHOTOMETRIC_SEPARATED } == true
            && Int32(uint16(TIFFTAG_INKSET) ?? UInt16(INKSET_CMYK)) == INKSET_CMYK
        return TIFFPage(
            directory: TIFFCurrentDirectory(handle),
            size: PixelSize(width: Int(width), height: Int(height)),
            orientation: (1...8).contains(orientation) ? ImageOrientation(exifValue: orientation) : .up,
            hasAlpha: found == 1 && extraCount > 0, isCMYK: isCMYK)
    }

    /// Decodes the current directory to RGBA with straight alpha, in stored orientation, through
    /// libtiff's RGBA interface (every photometric interpretation, bit depth, compression and
    /// strip/tile layout libtiff reads; 16-bit grey with alpha, which that interface draws
    /// opaque, through ``decodeGreyAlpha16(size:layout:)``). `size` must have been checked
    /// against the limits.
    /// - Throws: `unsupportedFormat` for a layout libtiff cannot turn into RGBA, `badImageData`
    ///   for corrupt or truncated data.
    func decodeCurrent(size: PixelSize) throws -> PixelBuffer {
        if let layout = greyAlpha16Layout() { return try decodeGreyAlpha16(size: size, layout: layout) }
        return try withRGBAImage(size: size) { image, premultiplied in
            try PixelBuffer.make(width: size.width, height: size.height) { out in
                let status = UnsafeMutableRawPointer(out.baseAddress!).withMemoryRebound(to: UInt32.self, capacity: size.pixelCount) {
                    TIFFRGBAImageGet(&image, $0, image.width, image.height)
                }
                guard status == 1 else { throw failure("corrupt or truncated image data") }
                TIFFMemoryFile.normalise(out, premultiplied: premultiplied)
            }
        }
    }

    /// Runs `body` with libtiff's RGBA reader begun on the current directory, rows requested as
    /// stored, and whether the raster it writes is premultiplied.
    /// - Throws: `unsupportedFormat` for a layout libtiff cannot turn into RGBA.
    func withRGBAImage<T>(size: PixelSize, _ body: (inout TIFFRGBAImage, Bool) throws -> T) throws -> T {
        var message = [CChar](repeating: 0, count: 1024)
        var image = TIFFRGBAImage()
        guard TIFFRGBAImageOK(handle, &message) == 1, TIFFRGBAImageBegin(&image, handle, 1, &message) == 1 else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw WebImageError.unsupportedFormat(.tiff, reason: reason.isEmpty ? "libtiff cannot read this layout" : reason)
        }
        defer { TIFFRGBAImageEnd(&image) }
        guard Int(image.width) == size.width, Int(image.height) == size.height else {
            throw failure("the image size changed while reading")
        }
        // Rows as stored (top row first), not libtiff's default bottom-up raster.
        image.req_orientation = image.orientation
        // libtiff premultiplies RGB colour by unassociated alpha and passes associated alpha
        // through; grey with unassociated alpha stays straight.
        let isGrey = Int32(image.photometric) == PHOTOMETRIC_MINISBLACK || Int32(image.photometric) == PHOTOMETRIC_MINISWHITE
        let premultiplied = image.alpha == EXTRASAMPLE_ASSOCALPHA || (image.alpha == EXTRASAMPLE_UNASSALPHA && !isGrey)
        return try body(&image, premultiplied)
    }

    /// libtiff's raster holds `A<<24 | B<<16 | G<<8 | R` words: RGBA bytes on little-endian
    /// machines. Swaps them on big-endian ones and un-premultiplies.
    static func normalise(_ out: UnsafeMutableBufferPointer<UInt8>, premultiplied: Bool) {
        #if _endian(big)
            var i = 0
            while i < out.count {
                out.swapAt(i, i + 3)
                out.swapAt(i + 1, i + 2)
                i += 4
            }
        #endif
        guard premultiplied else { return }
        unpremultiply(out)
    }

    /// RGBA bytes with premultiplied colour made straight, in place.
    static func unpremultiply(_ out: UnsafeMutableBufferPointer<UInt8>) {
        var i = 0
        while i < out.count {
            let alpha = Int(out[i + 3])
            if alpha == 0 {
                out[i] = 0
                out[i + 1] = 0
                out[i + 2] = 0
            } else if alpha < 255 {
                for c in i..<i + 3 { out[c] = UInt8(min(255, (Int(out[c]) * 255 + alpha / 2) / alpha)) }
            }
            i += 4
        }
    }
}
