import Foundation
import Testing
import WebImage
@testable import WebImageServer

@Suite struct SettingsTests {
    @Test func fileEnvironmentAndFlagsLayerInThatOrder() throws {
        let file = try ImageServiceSettings.values(fromConfigFile: """
            # comment
            bind = 0.0.0.0:9000
            workers = 3
            ttl = 10
            preset = thumb=rs:fill:64:64
            preset = default=q:70
            allow-network = loopback
            """)
        let environment = ImageServiceSettings.values(fromEnvironment: [
            "WEBIMAGE_TTL": "20", "WEBIMAGE_KEY": "736563726574,6f6c64", "WEBIMAGE_SALT": "68656C6C6F,6f6c64", "HOME": "/x",
        ])
        let flags: [String: [String]] = ["ttl": ["30"], "allow-address": ["10.0.0.0/8"], "max-src-resolution": ["2.5"]]
        let merged = ImageServiceSettings.merge(ImageServiceSettings.merge(file, environment), flags)
        let (configuration, host, port) = try ImageServiceSettings.configuration(from: merged)
        #expect(host == "0.0.0.0" && port == 9000)
        #expect(configuration.workers == 3 && configuration.ttl == 30)
        #expect(configuration.keyPairs.count == 2 && configuration.signer != nil)
        #expect(configuration.presets.presets["thumb"] == ["rs:fill:64:64"])
        #expect(configuration.limits.maxSourcePixels == 2_500_000)
        #expect(!configuration.addressPolicy.deniedClasses.contains(.loopback))
        #expect(configuration.addressPolicy.deniedClasses.contains(.privateNetwork))
        #expect(configuration.addressPolicy.allowedRanges == [IPAddressRange("10.0.0.0/8")!])
    }

    @Test func defaultsAreSafe() throws {
        let (configuration, host, port) = try ImageServiceSettings.configuration(from: [:])
        #expect(host == "127.0.0.1" && port == 8080)
        #expect(configuration.addressPolicy == .publicInternetOnly)
        #expect(configuration.localRoot == nil && configuration.keyPairs.isEmpty)
        #expect(configuration.limits.maxSourcePixels == 50_000_000 && configuration.limits.maxAnimationFrames == 100)
    }

    @Test func badSettingsAreNamed() {
        let bad: [[String: [String]]] = [
            ["bind": ["nowhere"]], ["workers": ["0"]], ["auto-webp": ["maybe"]], ["key": ["00"]],
            ["key": ["zz"], "salt": ["00"]], ["allow-network": ["everything"]], ["allow-address": ["300.1.1.1/8"]],
            ["preset": ["x=w:bad"]], ["signature-size": ["33"]],
        ]
        for values in bad {
            #expect(throws: ImageServiceSettings.Problem.self, "\(values)") { try ImageServiceSettings.configuration(from: values) }
        }
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.values(fromConfigFile: "colour = red") }
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.values(fromConfigFile: "workers") }
    }

    @Test func everySettingHasAnEnvironmentName() {
        #expect(ImageServiceSettings.all.first { $0.name == "max-src-bytes" }?.environmentName == "WEBIMAGE_MAX_SRC_BYTES")
        #expect(Set(ImageServiceSettings.all.map(\.name)).count == ImageServiceSettings.all.count)
    }
}
