import CLCMS2
import Foundation
import WebImageCore

/// The ICC bytes an encoder embeds for an image that carries a profile (G-3): the
/// profile's own bytes, or for a coded description (CICP, gamma/chromaticities) an equivalent
/// matrix/TRC profile made by LittleCMS. `nil` for untagged and sRGB images (untagged is
/// sRGB to every reader) and for descriptions with no ICC equivalent (HDR transfers).
enum EmbeddedProfile {
    static func iccData(for image: Image) -> Data? {
        guard let profile = image.colorProfile else { return nil }
        switch profile.kind {
        case .icc(let data):
            return data
        case .sRGB:
            return nil
        case .cicp(let cicp) where cicp.isSRGB:
            return nil
        case .cicp, .gamma:
            guard let lcms = LCMSProfile.make(profile) else { return nil }
            var size: cmsUInt32Number = 0
            guard cmsSaveProfileToMem(lcms.handle, nil, &size) != 0, size > 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: Int(size))
            guard cmsSaveProfileToMem(lcms.handle, &bytes, &size) != 0 else { return nil }
            return Data(bytes.prefix(Int(size)))
        }
    }
}
