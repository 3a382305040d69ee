import ArgumentParser
import Foundation
import WebImageServer

/// `webimage sign`: prints a signed image-service path for a source and options (SPEC V-3).
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print a signed image-service path for a source URL and processing options.",
        discussion: """
            Example: webimage sign --key 736563726574 --salt 68656C6C6F --options rs:fill:300:400:0/g:sm \
            --ext png http://example.com/images/curiosity.jpg
            Key and salt also come from WEBIMAGE_KEY / WEBIMAGE_SALT (first pair).
            """)

    @Argument(help: "The source URL.") var source: String
    @Option(help: "Processing options, `/`-separated (e.g. rs:fill:300:300/q:80).") var options: String = ""
    @Option(help: "Output extension (jpg, png, webp, avif, gif).") var ext: String?
    @Option(help: "Hex signing key.") var key: String?
    @Option(help: "Hex signing salt.") var salt: String?
    @Option(name: .customLong("signature-size"), help: "Bytes of HMAC kept (1-32).") var signatureSize: Int = 32
    @Flag(help: "Put the source in plain form (/plain/…@ext) instead of base64.") var plain = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let keyText = key ?? environment["WEBIMAGE_KEY"]?.split(separator: ",").first.map(String.init)
        let saltText = salt ?? environment["WEBIMAGE_SALT"]?.split(separator: ",").first.map(String.init)
        guard let keyText, let saltText else { throw ValidationError("give --key and --salt (hex)") }
        guard let pair = URLSigner.KeyPair(hexKey: keyText, hexSalt: saltText) else { throw ValidationError("--key/--salt must be hex") }
        guard (1...32).contains(signatureSize) else { throw ValidationError("--signature-size must be 1-32") }
        var path = options.split(separator: "/").map { "/" + $0 }.joined()
        if plain {
            let escaped = source.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3F")
                .replacingOccurrences(of: "@", with: "%40")
            path += "/plain/" + escaped + (ext.map { "@" + $0 } ?? "")
        } else {
            path += "/" + Base64URL.encode(Array(source.utf8)) + (ext.map { "." + $0 } ?? "")
        }
        print("/" + URLSigner(keyPairs: [pair], signatureSize: signatureSize).sign(path) + path)
    }
}
