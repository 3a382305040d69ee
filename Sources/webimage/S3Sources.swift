import Foundation
import WebImage

/// `s3://bucket/key[?versionId=…]` inputs: the downloader's request modifier that signs them
/// with the credentials, region and endpoint of the standard AWS variables and shared files
/// (``AWSSettings/resolve(environment:homeDirectory:)``).
enum S3Sources {
    /// The modifier for a command's downloader. Settings that cannot be read (an unreadable
    /// `~/.aws/config`, an endpoint that is not a URL) fail each `s3://` load with that error;
    /// other URLs are unaffected.
    static func requestModifier() -> any DownloaderRequestModifier {
        do {
            return S3RequestSigner(S3Configuration(settings: try AWSSettings.resolve()))
        } catch {
            return UnavailableS3Sources(error: error as? WebImageError ?? .invalidDownloadOperation(reason: "\(error)"))
        }
    }
}
