import Foundation
import WebImageCore

/// The block structure of a GIF file, read by walking its blocks without decompressing any
/// pixels (SPEC I-4): logical screen, one record per image (frame rectangle and the Graphic
/// Control Extension that precedes it) and the NETSCAPE2.0 loop count.
///
/// The walk is linear in the file size, allocates only the frame table and stops at the first
/// truncated or unknown block, so it is safe on hostile input. The decoder uses it to check
/// limits before allocating pixels and to look up each frame's delay, disposal and transparency;
/// metadata, `isAnimated` and the animated source use it on its own.
struct GIFStructure {
    /// How a frame's area is treated before the next frame is drawn (GIF89a disposal method).
    enum Disposal: UInt8 {
        /// 0 (unspecified) and 1 (do not dispose): the frame stays.
        case keep
        /// 2: the frame's area becomes transparent (browsers clear to transparent, not to the
        /// background colour).
        case background
        /// 3: the frame's area is restored to what it was before the frame was drawn.
        case previous

        init(code: UInt8) {
            switch code {
            case 2: self = .background
            case 3: self = .previous
            default: self = .keep  // 0, 1 and the reserved values 4–7
            }
        }
    }

    /// One image descriptor whose data is complete in the file.
    struct Frame {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var interlaced: Bool
        var hasLocalColorMap: Bool
        /// Delay from the Graphic Control Extension, in centiseconds (0 when absent).
        var delayCentiseconds: Int
        var disposal: Disposal
        /// Palette index that is not drawn, or `nil`.
        var transparentIndex: UInt8?
    }

    /// Logical screen width and height as declared.
    var screenWidth = 0
    var screenHeight = 0
    var hasGlobalColorMap = false
    /// Complete frames, in file order (at most `maxFrames + 1`, see ``scan(_:maxFrames:)``).
    var frames: [Frame] = []
    /// The NETSCAPE2.0/ANIMEXTS1.0 loop value (0 = forever), or `nil` when the file has none.
    var netscapeLoopCount: Int?
    /// The ICC profile of an `ICCRGBG1012` application extension (G-1), the first one only;
    /// its sub-blocks joined, at most ``maxICCBytes``.
    var iccProfile: Data?
    /// The largest `ICCRGBG1012` profile kept.
    static let maxICCBytes = 4 << 20
    /// Whether the walk stopped before a trailer (truncated data, junk, or a limit).
    var endedEarly = false
    /// The image whose descriptor is present but whose data ends before its last sub-block
    /// (the frame still arriving during a progressive load), or `nil`.
    var truncatedFrame: Frame?

    /// Extension blocks walked at most; the rest of a file with more is ignored.
    static let maxExtensions = 65_536

    /// The canvas the frames are composited on: the logical screen. A screen dimension of 0
    /// (seen in broken encoders' output) is replaced by the first frame's right/bottom edge.
    var canvasSize: PixelSize {
        var width = screenWidth
        var height = screenHeight
        if let first = frames.first {
            if width == 0 { width = first.left + first.width }
            if height == 0 { height = first.top + first.height }
        }
        return PixelSize(width: width, height: height)
    }

    /// Loop count as this library reports it: the NETSCAPE value as stored (0 = forever), or 1
    /// (play once) when the file has no loop extension — SDWebImage's and ImageIO's reading.
    var loopCount: Int { netscapeLoopCount ?? 1 }

    /// Whether any frame may leave transparent pixels on the canvas.
    var mayHaveAlpha: Bool {
        guard let first = frames.first else { return false }
        let canvas = canvasSize
        if first.left > 0 || first.top > 0 || first.left + first.width < canvas.width
            || first.top + first.height < canvas.height
        {
            return true
        }
        return frames.contains { $0.transparentIndex != nil || $0.disposal != .keep }
    }

    /// Walks the blocks of `bytes`.
    ///
    /// - Parameter maxFrames: the walk stops once it has recorded `maxFrames + 1` frames, so
    ///   that a frame-count limit check on the result fails without the table growing further.
    /// - Throws: `badImageData` when the header or logical screen descriptor is missing.
    static func scan(_ bytes: UnsafeRawBufferPointer, maxFrames: Int = Int.max) throws -> GIFStructure {
        guard bytes.count >= 13, bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46 else {
            throw WebImageError.badImageData(reason: "GIF: missing header or logical screen descriptor")
        }
        var result = GIFStructure()
        result.screenWidth = Int(bytes[6]) | Int(bytes[7]) << 8
        result.screenHeight = Int(bytes[8]) | Int(bytes[9]) << 8
        let screenFlags = bytes[10]
        result.hasGlobalColorMap = screenFlags & 0x80 != 0
        var p = 13
        if result.hasGlobalColorMap { p += 3 << ((Int(screenFlags) & 7) + 1) }

        var pending: (delay: Int, disposal: Disposal, transparent: UInt8?)?
        var extensions = 0
        let end = bytes.count
        let frameLimit = maxFrames == Int.max ? Int.max : maxFrames + 1

        /// Skips a chain of data sub-blocks starting at `q`; returns the offset after the
        /// terminating zero-length block, or `nil` when the data ends first.
        func skipSubBlocks(from start: Int) -> Int? {
            var q = start
            while q < end {
                let length = Int(bytes[q])
                q += 1
                if length == 0 { return q }
                q += length
            }
            return nil
        }

        while true {
            guard p < end else {
                result.endedEarly = true
                break
            }
            let introducer = bytes[p]
            if introducer == 0x3B { break }  // trailer
            if introducer == 0x21 {  // extension
                extensions += 1
                guard extensions <= maxExtensions, p + 2 < end else {
                    result.endedEarly = true
                    break
                }
                let label = bytes[p + 1]
                let firstBlock = p + 2
                let firstLength = Int(bytes[firstBlock])
                if label == 0xF9, firstLength >= 4, firstBlock + 4 < end {
                    let packed = bytes[firstBlock + 1]
                    let delay = Int(bytes[firstBlock + 2]) | Int(bytes[firstBlock + 3]) << 8
                    let transparent: UInt8? = packed & 1 != 0 ? bytes[firstBlock + 4] : nil
                    pending = (delay, Disposal(code: (packed >> 2) & 7), transparent)
                } else if label == 0xFF, firstLength == 11, firstBlock + 12 < end {
                    let identifier = Array(bytes[(firstBlock + 1)..<(firstBlock + 12)])
                    let second = firstBlock + 12
                    if identifier == Array("NETSCAPE2.0".utf8) || identifier == Array("ANIMEXTS1.0".utf8),
                        result.netscapeLoopCount == nil, second + 3 < end, bytes[second] >= 3, bytes[second + 1] & 7 == 1
                    {
                        result.netscapeLoopCount = Int(bytes[second + 2]) | Int(bytes[second + 3]) << 8
                    } else if identifier == Array("ICCRGBG1012".utf8), result.iccProfile == nil {
                        // The profile is the payload of the sub-blocks after the identifier.
                        var profile = Data()
                        var q = second
                        while q < end, bytes[q] != 0, profile.count <= maxICCBytes {
                            let length = Int(bytes[q])
                            guard q + 1 + length <= end else { break }
                            profile.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[(q + 1)..<(q + 1 + length)]))
                            q += 1 + length
                        }
                        if q < end, bytes[q] == 0, profile.count <= maxICCBytes { result.iccProfile = profile }
                    }
                }
                guard let next = skipSubBlocks(from: firstBlock) else {
                    result.endedEarly = true
                    break
                }
                p = next
                continue
            }
            guard introducer == 0x2C, p + 10 <= end else {  // image descriptor, else junk
                result.endedEarly = true
                break
            }
            func word(_ offset: Int) -> Int { Int(bytes[p + offset]) | Int(bytes[p + offset + 1]) << 8 }
            let flags = bytes[p + 9]
            let frame = Frame(
                left: word(1), top: word(3), width: word(5), height: word(7),
                interlaced: flags & 0x40 != 0, hasLocalColorMap: flags & 0x80 != 0,
                delayCentiseconds: pending?.delay ?? 0, disposal: pending?.disposal ?? .keep,
                transparentIndex: pending?.transparent)
            pending = nil
            var q = p + 10
            if frame.hasLocalColorMap { q += 3 << ((Int(flags) & 7) + 1) }
            q += 1  // LZW minimum code size
            guard q < end, let next = skipSubBlocks(from: q) else {
                result.endedEarly = true
                if q <= end { result.truncatedFrame = frame }
                break
            }
            result.frames.append(frame)
            p = next
            if result.frames.count >= frameLimit {
                result.endedEarly = true
                break
            }
        }
        return result
    }
}

extension GIFStructure {
    /// The `ICCRGBG1012` profile as a colour description, when it is an RGB or grey profile.
    var colorProfile: ColorProfile? {
        iccProfile.flatMap { ColorProfile(icc: $0) }.flatMap { [.rgb, .gray].contains($0.colorModel) ? $0 : nil }
    }
}
