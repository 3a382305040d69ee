/// How a libjpeg warning affects the decoded pixels.
///
/// The rule (used by every JPEG decode):
/// - `tjDecompress2` returning 0 is success.
/// - A failure with `tjGetErrorCode() == TJERR_FATAL` is fatal: `badImageData`.
/// - A failure reported as `TJERR_WARNING` is classified by its message, because TurboJPEG
///   2.x keeps only the last message and reports "warning" for an instance on which any warning
///   was emitted, even if a fatal error followed. A message that is not one of libjpeg's
///   warnings (`JWRN_*` in `jerror.h`) is therefore treated as fatal.
/// - Warnings that mean pixel data is missing or damaged — `Premature end of JPEG file` (the
///   data was truncated) and the `Corrupt JPEG data: …` entropy-decoding warnings (bad Huffman
///   or arithmetic code, premature end of data segment, marker instead of RSTn) — are
///   ``damaged``: a full decode throws `badImageData` rather than report a partial image as a
///   success; a progressive (incremental) decode accepts them, since a growing prefix is
///   truncated by nature.
/// - Other warnings (`extraneous bytes before marker`, unknown JFIF revision, inconsistent
///   progression, invalid SOS parameters, unknown Adobe transform, bad ICC marker) leave the
///   image intact: ``harmless``, the image is returned. Browsers show such files, and they are
///   common in the wild.
enum JPEGWarning: Equatable {
    case harmless
    case damaged
    case notAWarning

    /// Classifies a TurboJPEG message.
    init(message: String) {
        let damagedPrefixes = [
            "Premature end of JPEG file",
            "Corrupt JPEG data: premature end of data segment",
            "Corrupt JPEG data: bad Huffman code",
            "Corrupt JPEG data: bad arithmetic code",
            "Corrupt JPEG data: found marker",
        ]
        let harmlessPrefixes = [
            "Corrupt JPEG data: ",  // extraneous bytes before marker, bad ICC marker
            "Warning: unknown JFIF revision",
            "Inconsistent progression sequence",
            "Invalid SOS parameters for sequential JPEG",
            "Unknown Adobe color transform code",
            "Application transferred too many scanlines",
        ]
        if damagedPrefixes.contains(where: message.hasPrefix) {
            self = .damaged
        } else if harmlessPrefixes.contains(where: message.hasPrefix) {
            self = .harmless
        } else {
            self = .notAWarning
        }
    }
}
