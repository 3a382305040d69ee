import Foundation
import WebImageCore

/// What changed between two frames of an animation, for encoders that store only that
/// (APNG's and GIF's frame writers).
enum FrameDifference {
    /// The smallest rectangle holding every pixel of `current` that differs from `previous`
    /// (same size); a 1×1 rectangle at the origin when none does. Rows are compared with
    /// `memcmp`; columns are searched only in the rows that differ.
    static func changedRegion(from previous: PixelBuffer, to current: PixelBuffer) -> PixelRect {
        let width = current.width
        let rowBytes = current.bytesPerRow
        return previous.bytes.withUnsafeBytes { old in
            current.bytes.withUnsafeBytes { new in
                guard let oldBase = old.baseAddress, let newBase = new.baseAddress else {
                    return PixelRect(x: 0, y: 0, width: 1, height: 1)
                }
                var top = -1
                var bottom = -1
                var left = width
                var right = -1
                for y in 0..<current.height {
                    let offset = y * rowBytes
                    guard memcmp(oldBase + offset, newBase + offset, rowBytes) != 0 else { continue }
                    if top < 0 { top = y }
                    bottom = y
                    var x = 0
                    while x < left, memcmp(oldBase + offset + x * 4, newBase + offset + x * 4, 4) == 0 { x += 1 }
                    left = min(left, x)
                    x = width - 1
                    while x > right, memcmp(oldBase + offset + x * 4, newBase + offset + x * 4, 4) == 0 { x -= 1 }
                    right = max(right, x)
                }
                guard top >= 0 else { return PixelRect(x: 0, y: 0, width: 1, height: 1) }
                return PixelRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            }
        }
    }

    /// Whether some pixel of `region` is at least `threshold` opaque in `previous` and below it
    /// in `current`.
    static func turnsTransparent(from previous: PixelBuffer, to current: PixelBuffer, in region: PixelRect, threshold: UInt8) -> Bool {
        previous.bytes.withUnsafeBufferPointer { old in
            current.bytes.withUnsafeBufferPointer { new in
                for y in region.y..<(region.y + region.height) {
                    let row = y * current.width
                    for x in region.x..<(region.x + region.width) {
                        let alpha = (row + x) * 4 + 3
                        if old[alpha] >= threshold && new[alpha] < threshold { return true }
                    }
                }
                return false
            }
        }
    }

    /// The pixels of `region` (inside `pixels`); `pixels` itself when the region is all of it.
    static func crop(_ pixels: PixelBuffer, to region: PixelRect) -> PixelBuffer {
        if region.x == 0 && region.y == 0 && region.width == pixels.width && region.height == pixels.height { return pixels }
        let rowBytes = region.width * 4
        return PixelBuffer.make(width: region.width, height: region.height) { out in
            pixels.bytes.withUnsafeBytes { source in
                for row in 0..<region.height {
                    let from = ((region.y + row) * pixels.width + region.x) * 4
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out[(row * rowBytes)..<((row + 1) * rowBytes)]))
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[from..<(from + rowBytes)]))
                }
            }
        }
    }
}
