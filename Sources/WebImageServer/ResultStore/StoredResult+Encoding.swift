import Crypto
import Foundation

/// The bytes of a stored result: a magic line, the length of a JSON header (4 bytes, big
/// endian), the header (the key, metadata, body length and the body's SHA-256) and the body.
/// Reading checks every part, so a truncated or corrupt entry, or one in an earlier format
/// (another magic line, or no key in its header), reads as no entry.
extension StoredResult {
    /// The first bytes of every entry.
    static let magic = Array("webimage-result-v2\n".utf8)
    /// The largest header read.
    static let maxHeaderBytes = 16 * 1024

    private struct Header: Codable {
        var key: String
        var contentType: String
        var etag: String
        var lastModified: String?
        var expiresAt: Double
        var bodyBytes: Int
        var bodySHA256: String
    }

    /// The entry's bytes.
    func encoded() throws -> Data {
        let header = Header(
            key: key.name, contentType: contentType, etag: etag, lastModified: lastModified, expiresAt: expiresAt.timeIntervalSince1970,
            bodyBytes: body.count, bodySHA256: Self.hex(SHA256.hash(data: body)))
        let json = try JSONEncoder().encode(header)
        var data = Data(Self.magic)
        let length = UInt32(json.count)
        data.append(contentsOf: [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
        data.append(json)
        data.append(body)
        return data
    }

    /// The entry in `data`, or `nil` when `data` is not one whole entry.
    init?(encoded data: Data) {
        let magic = Self.magic
        let start = data.startIndex
        guard data.count >= magic.count + 4, data.prefix(magic.count).elementsEqual(magic) else { return nil }
        var offset = start + magic.count
        let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
        offset += 4
        guard length <= Self.maxHeaderBytes, data.endIndex - offset >= length else { return nil }
        guard let header = try? JSONDecoder().decode(Header.self, from: data[offset..<(offset + length)]),
            let key = ResultStoreKey(name: header.key)
        else { return nil }
        offset += length
        guard header.bodyBytes == data.endIndex - offset, header.expiresAt.isFinite else { return nil }
        let body = Data(data[offset...])
        guard Self.hex(SHA256.hash(data: body)) == header.bodySHA256 else { return nil }
        self.init(
            key: key, body: body, contentType: header.contentType, etag: header.etag, lastModified: header.lastModified,
            expiresAt: Date(timeIntervalSince1970: header.expiresAt))
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { byte in byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
    }
}
