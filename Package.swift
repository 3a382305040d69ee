// swift-tools-version: 6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode (the tools-version default),
/// complete strict concurrency, and the upcoming features the house style asks for.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "swift-web-image",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .library(name: "WebImageCore", targets: ["WebImageCore"]),
        .library(name: "WebImageCodecs", targets: ["WebImageCodecs"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `make docs` only: the DocC plugin (no code of it is linked into any product).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // C libraries from Debian's -dev packages (installed by `make setup`).
        .systemLibrary(name: "CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CSPNG", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),

        // The image model, format sniffing, coder protocols and registry: pure Swift, no C.
        .target(name: "WebImageCore", swiftSettings: swiftSettings),

        // Decoders and encoders over the C libraries.
        .target(
            name: "WebImageCodecs",
            dependencies: ["WebImageCore", "CTurboJPEG", "CSPNG", "CWebP", "CGIF"],
            swiftSettings: swiftSettings
        ),

        // The library users import: re-exports the model and codecs; caches, loader, pipeline.
        .target(
            name: "WebImage",
            dependencies: ["WebImageCore", "WebImageCodecs"],
            swiftSettings: swiftSettings
        ),

        // Shared test support: corpus manifest, reference PNG reader, pixel comparison.
        .target(
            name: "WebImageTesting",
            dependencies: ["WebImageCore", "CSPNG"],
            swiftSettings: swiftSettings
        ),

        // The command-line tool.
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // Decode benchmark driver (Benchmarks/run-decode.sh compares it with C, Pillow, libvips).
        .executableTarget(
            name: "webimage-bench",
            dependencies: ["WebImageCodecs", "WebImageCore"],
            path: "Benchmarks/Sources/webimage-bench",
            swiftSettings: swiftSettings
        ),

        // Deterministic mutation fuzzer over the corpus (`make fuzz`, under AddressSanitizer).
        .executableTarget(
            name: "webimage-fuzz",
            dependencies: ["WebImageCodecs", "WebImageCore"],
            path: "Fuzz/Sources/webimage-fuzz",
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "WebImageCoreTests",
            dependencies: ["WebImageCore", "WebImageTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebImageCodecsTests",
            dependencies: ["WebImageCodecs", "WebImageCore", "WebImageTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: ["WebImage", "WebImageTesting"],
            swiftSettings: swiftSettings
        ),
        // Runs the built `webimage` binary (found next to the test bundle) as a subprocess.
        .testTarget(
            name: "WebImageCLITests",
            dependencies: ["WebImageTesting", "WebImageCore", "WebImageCodecs"],
            swiftSettings: swiftSettings
        ),
    ]
)
