import Foundation

/// The `maxFileSize` rule of ``EncodeOptions`` (SPEC C-5), shared by every lossy encoder.
public enum FileSizeSearch {
    /// Encodes `image` so the result is at most `maxBytes` if possible: first a binary search
    /// over quality (from the requested quality down to 0.05, at most 7 encodes), then, if even
    /// the lowest quality is too large, shrinking the image by 3/4 per step (at most 8 steps).
    /// Returns the smallest result found when nothing fits.
    ///
    /// - Parameters:
    ///   - image: the image to encode.
    ///   - maxBytes: the size to fit in.
    ///   - startQuality: the quality to try first (the caller's requested quality).
    ///   - encodeAt: encodes an image at a quality in 0…1.
    public static func encode(
        _ image: Image,
        maxBytes: Int,
        startQuality: Double,
        encodeAt: (Image, Double) throws -> Data
    ) throws -> Data {
        let first = try encodeAt(image, startQuality)
        if first.count <= maxBytes { return first }
        var best = first
        var low = 0.05
        var high = startQuality
        var current = image
        var fitted: Data?
        for _ in 0..<7 where high - low > 0.02 {
            let mid = (low + high) / 2
            let data = try encodeAt(current, mid)
            if data.count < best.count { best = data }
            if data.count <= maxBytes {
                fitted = data
                low = mid
            } else {
                high = mid
            }
        }
        if let fitted { return fitted }
        let floorData = try encodeAt(current, 0.05)
        if floorData.count <= maxBytes { return floorData }
        if floorData.count < best.count { best = floorData }
        for _ in 0..<8 {
            let size = PixelSize(width: max(1, current.width * 3 / 4), height: max(1, current.height * 3 / 4))
            if size == current.pixelSize { break }
            current = current.replacing(frames: current.frames.map {
                ImageFrame(pixels: $0.pixels.downscaled(to: size), duration: $0.duration)
            })
            let data = try encodeAt(current, 0.05)
            if data.count < best.count { best = data }
            if data.count <= maxBytes { return data }
        }
        return best
    }
}
