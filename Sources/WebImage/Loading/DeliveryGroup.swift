import Foundation

/// The callers of one download that get the same decoded result: same coders, same decode
/// options, and whether they want an image at all.
struct DeliveryGroup: Hashable {
    let coders: ObjectIdentifier
    let options: DecodeOptions
    let decode: Bool

    init(_ caller: DownloadCallerSink) {
        coders = ObjectIdentifier(caller.coders)
        options = caller.decodeOptions
        decode = caller.decodesImage
    }
}
