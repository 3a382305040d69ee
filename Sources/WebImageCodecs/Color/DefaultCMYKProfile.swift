import Foundation
import WebImageCore

/// The CMYK profile untagged CMYK and YCCK JPEGs are read in (G-2), as libvips does with its
/// built-in CMYK profile: a CMYK → Lab output profile for offset printing on coated paper
/// (ISO 12647-2, Fogra's FOGRA39 characterisation data, the condition Photoshop's
/// "Coated FOGRA39" default describes).
///
/// It ships inside the library (about 58 KB of ICC data, compiled in as base64 text), so it
/// works without any system file. `scripts/make-cmyk-profile.sh` (`make cmyk-profile`) makes
/// it with ArgyllCMS's `colprof` from `FOGRA39L.ti3` in Debian's `icc-profiles-free` (Zlib
/// licence); the Colour article says where it comes from and under which licence.
public enum DefaultCMYKProfile {
    /// The profile, decoded once on first use.
    public static let profile: ColorProfile = {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters),
            let profile = ColorProfile(icc: data)
        else { preconditionFailure("the built-in CMYK profile's data is not an ICC profile") }
        return profile
    }()
}
