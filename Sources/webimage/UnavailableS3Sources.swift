import Foundation
import WebImage

/// Fails every `s3://` load with the error that kept the AWS settings from being read.
struct UnavailableS3Sources: DownloaderRequestModifier {
    let error: WebImageError

    var mappedSchemes: Set<String> { ["s3"] }

    func modify(_ request: ImageDownloadRequest) throws -> ImageDownloadRequest {
        guard request.url.scheme?.lowercased() == "s3" else { return request }
        throw error
    }
}
