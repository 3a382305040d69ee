import CTIFF
import Foundation
import WebImageCore

/// One page of a TIFF file the tests write with libtiff itself: the samples exactly as the
/// file stores them (rows packed, contiguous), and the tags describing them.
public struct TIFFTestPage: Sendable {
    public var width: Int
    public var height: Int
    public var bitsPerSample = 8
    public var samplesPerPixel = 3
    public var photometric = PHOTOMETRIC_RGB
    public var compression = COMPRESSION_NONE
    /// Associated or unassociated alpha as the last sample.
    public var extraSample: Int32?
    public var orientation = 1
    /// Tiles of this size instead of strips.
    public var tileSize: Int?
    public var rowsPerStrip = 8
    public var planarSeparate = false
    /// 3 × 2^bits 16-bit entries (red, green, blue) for palette images.
    public var colormap: [UInt16]?
    /// YCbCr through libtiff's JPEG codec from RGB samples (`JPEGCOLORMODE_RGB`).
    public var jpegYCbCrFromRGB = false
    public var jpegQuality = 100
    public var subfileType: UInt32 = 0
    /// An ICC profile written as tag 34675 (`TIFFTAG_ICCPROFILE`).
    public var iccProfile: [UInt8]?
    /// The stored samples: `height` rows of ⌈width × samples × bits / 8⌉ bytes (16-bit samples
    /// in native byte order, as libtiff takes them).
    public var samples: [UInt8]

    /// A page of `samples`; every tag not given has the default above.
    public init(
        width: Int, height: Int, bitsPerSample: Int = 8, samplesPerPixel: Int = 3, photometric: Int32 = PHOTOMETRIC_RGB,
        compression: Int32 = COMPRESSION_NONE, extraSample: Int32? = nil, orientation: Int = 1, tileSize: Int? = nil,
        rowsPerStrip: Int = 8, planarSeparate: Bool = false, colormap: [UInt16]? = nil, samples: [UInt8]
    ) {
        self.width = width
        self.height = height
        self.bitsPerSample = bitsPerSample
        self.samplesPerPixel = samplesPerPixel
        self.photometric = photometric
        self.compression = compression
        self.extraSample = extraSample
        self.orientation = orientation
        self.tileSize = tileSize
        self.rowsPerStrip = rowsPerStrip
        self.planarSeparate = planarSeparate
        self.colormap = colormap
        self.samples = samples
    }

    /// Bytes of one stored row.
    public var rowBytes: Int { (width * samplesPerPixel * bitsPerSample + 7) / 8 }
}

/// Writes TIFF files for tests and the fuzzer through libtiff's own API (`TIFFOpen`, `TIFFWriteScanline`,
/// `TIFFWriteTile`), so every variant is a file libtiff itself produced.
public enum TIFFTestWriter {
    /// libtiff refused a call while writing.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The pages as one TIFF file (written to a temporary file by libtiff, read back, removed).
    public static func write(_ pages: [TIFFTestPage]) throws -> Data {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-tiff-\(UUID().uuidString).tif")
        defer { try? FileManager.default.removeItem(at: url) }
        let tiff = try require(TIFFOpen(url.path, "w"), "TIFFOpen")
        var closed = false
        defer { if !closed { TIFFClose(tiff) } }
        for page in pages {
            try writePage(page, to: tiff)
            try check(TIFFWriteDirectory(tiff) == 1, "TIFFWriteDirectory")
        }
        TIFFClose(tiff)
        closed = true
        return try Data(contentsOf: url)
    }

    private static func check(_ condition: Bool, _ what: String) throws {
        if !condition { throw Failure(description: "libtiff refused \(what)") }
    }

    private static func require<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw Failure(description: "libtiff refused \(what)") }
        return value
    }

    private static func set(_ tiff: OpaquePointer, _ tag: Int32, _ values: any CVarArg...) throws {
        let status = withVaList(values) { TIFFVSetField(tiff, UInt32(tag), $0) }
        try check(status == 1, "TIFFSetField \(tag)")
    }

    private static func writePage(_ page: TIFFTestPage, to tiff: OpaquePointer) throws {
        try set(tiff, TIFFTAG_IMAGEWIDTH, UInt32(page.width))
        try set(tiff, TIFFTAG_IMAGELENGTH, UInt32(page.height))
        try set(tiff, TIFFTAG_BITSPERSAMPLE, UInt32(page.bitsPerSample))
        try set(tiff, TIFFTAG_SAMPLESPERPIXEL, UInt32(page.samplesPerPixel))
        try set(tiff, TIFFTAG_PHOTOMETRIC, UInt32(page.photometric))
        try set(tiff, TIFFTAG_COMPRESSION, UInt32(page.compression))
        try set(tiff, TIFFTAG_PLANARCONFIG, UInt32(page.planarSeparate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG))
        try set(tiff, TIFFTAG_ORIENTATION, UInt32(page.orientation))
        if page.subfileType != 0 { try set(tiff, TIFFTAG_SUBFILETYPE, page.subfileType) }
        if page.photometric == PHOTOMETRIC_SEPARATED { try set(tiff, TIFFTAG_INKSET, UInt32(INKSET_CMYK)) }
        if var icc = page.iccProfile {
            try icc.withUnsafeMutableBufferPointer { try set(tiff, TIFFTAG_ICCPROFILE, UInt32($0.count), $0.baseAddress!) }
        }
        var extra: [UInt16] = page.extraSample.map { [UInt16($0)] } ?? []
        if !extra.isEmpty {
            try extra.withUnsafeMutableBufferPointer { try set(tiff, TIFFTAG_EXTRASAMPLES, UInt32(1), $0.baseAddress!) }
        }
        if var map = page.colormap {
            let n = map.count / 3
            try map.withUnsafeMutableBufferPointer { m in
                try set(tiff, TIFFTAG_COLORMAP, m.baseAddress!, m.baseAddress! + n, m.baseAddress! + 2 * n)
            }
        }
        if page.compression == COMPRESSION_JPEG {
            try set(tiff, TIFFTAG_JPEGQUALITY, Int32(page.jpegQuality))
            if page.jpegYCbCrFromRGB { try set(tiff, TIFFTAG_JPEGCOLORMODE, Int32(JPEGCOLORMODE_RGB)) }
        }
        if let tile = page.tileSize {
            try set(tiff, TIFFTAG_TILEWIDTH, UInt32(tile))
            try set(tiff, TIFFTAG_TILELENGTH, UInt32(tile))
            try writeTiles(page, tile: tile, to: tiff)
        } else {
            try set(tiff, TIFFTAG_ROWSPERSTRIP, UInt32(page.rowsPerStrip))
            try writeStrips(page, to: tiff)
        }
    }

    private static func writeStrips(_ page: TIFFTestPage, to tiff: OpaquePointer) throws {
        if page.planarSeparate {
            // One plane per sample (8-bit only).
            for sample in 0..<page.samplesPerPixel {
                for y in 0..<page.height {
                    var row = (0..<page.width).map { page.samples[(y * page.width + $0) * page.samplesPerPixel + sample] }
                    let status = row.withUnsafeMutableBytes { TIFFWriteScanline(tiff, $0.baseAddress, UInt32(y), UInt16(sample)) }
                    try check(status == 1, "TIFFWriteScanline")
                }
            }
            return
        }
        for y in 0..<page.height {
            var row = Array(page.samples[y * page.rowBytes..<(y + 1) * page.rowBytes])
            let status = row.withUnsafeMutableBytes { TIFFWriteScanline(tiff, $0.baseAddress, UInt32(y), 0) }
            try check(status == 1, "TIFFWriteScanline")
        }
    }

    /// Tiles for byte-aligned samples, partial tiles at the edges padded with zeros.
    private static func writeTiles(_ page: TIFFTestPage, tile: Int, to tiff: OpaquePointer) throws {
        let pixelBytes = page.samplesPerPixel * page.bitsPerSample / 8
        for tileY in stride(from: 0, to: page.height, by: tile) {
            for tileX in stride(from: 0, to: page.width, by: tile) {
                var buffer = [UInt8](repeating: 0, count: tile * tile * pixelBytes)
                for y in 0..<min(tile, page.height - tileY) {
                    let count = min(tile, page.width - tileX) * pixelBytes
                    let source = (tileY + y) * page.rowBytes + tileX * pixelBytes
                    buffer.replaceSubrange(y * tile * pixelBytes..<y * tile * pixelBytes + count, with: page.samples[source..<source + count])
                }
                let written = buffer.withUnsafeMutableBytes { TIFFWriteTile(tiff, $0.baseAddress, UInt32(tileX), UInt32(tileY), 0, 0) }
                try check(written > 0, "TIFFWriteTile")
            }
        }
    }
}
