// swift-tools-version: 6.2
import PackageDescription

// 6.2 is the minimum: the sources use `weak let` (SE-0481, new in Swift 6.2).

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
        .library(name: "WebImageAppleAdapters", targets: ["WebImageAppleAdapters"]),
        // Test support for users' own tests: loopback HTTP servers with scripted responses and
        // request counts (as Hummingbird ships HummingbirdTesting).
        .library(name: "WebImageTesting", targets: ["WebImageTesting"]),
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `make docs` only: the DocC plugin (no code of it is linked into any product).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Already in the graph through AsyncHTTPClient; named so the loader can import the TLS
        // configuration (allowInvalidSSLCertificates) and the decompression limit.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.36.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        // Already in the graph through AsyncHTTPClient: named so the loader can classify HTTP/2
        // stream errors, and the loopback test server can speak HTTP/2.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // Test support only (WebImageTesting): the loopback server's TLS mode generates a
        // self-signed certificate at test time.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // The image service (WebImageServer only; the pipeline library does not depend on them).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Already in the graph through Hummingbird; named so the service can build header fields.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        // C libraries from Debian's -dev packages (installed by `make setup`).
        .systemLibrary(name: "CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        // libjpeg-turbo's libjpeg API, for the one decode TurboJPEG cannot express (SPEC C-4a).
        .systemLibrary(name: "CJPEGLib", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CSPNG", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        // LittleCMS 2: ICC colour management (SPEC G).
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // librsvg and poppler-glib sit on GLib and cairo: pkg-config gives their include paths.
        .systemLibrary(name: "CRSVG", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        .systemLibrary(name: "CPoppler", pkgConfig: "poppler-glib", providers: [.apt(["libpoppler-glib-dev"])]),

        // The resampler's fixed-point passes at the machine's vector width: AVX2 functions with
        // per-function target attributes behind a run-time CPU check (x86-64), NEON (arm64).
        // C rather than Swift: Swift has no per-function target attribute, and a whole module
        // built with -mavx2 would not run on baseline x86-64 (WebImage.docc, Performance).
        .target(name: "CResampleKernels"),
        // SSIMULACRA2's row loops, the same way: one C source over 8-float vectors, compiled for
        // the baseline and again with AVX2 and FMA behind the CPU check.
        .target(name: "CMetricKernels"),
        // Progressive JPEG at 1/8 from its DC scans: our own entropy decoder and libjpeg-turbo's
        // 1/8 pipeline (WebImageCodecs' JPEGReducedScanDecode), in C for its bit-level loops.
        .target(name: "CJPEGReduced"),

        // The image model, format sniffing, coder protocols and registry: Swift, with C only
        // for the resampler's and the metric's machine-width kernels.
        .target(name: "WebImageCore", dependencies: ["CResampleKernels", "CMetricKernels"], swiftSettings: swiftSettings),

        // Decoders and encoders over the C libraries.
        .target(
            name: "WebImageCodecs",
            dependencies: [
                "WebImageCore", "CTurboJPEG", "CJPEGLib", "CJPEGReduced", "CSPNG", "CWebP", "CGIF", "CAVIF", "CHEIF", "CJXL", "CTIFF", "CRSVG", "CPoppler",
                "CLCMS2",
            ],
            swiftSettings: swiftSettings
        ),

        // The library users import: re-exports the model and codecs; caches, loader, pipeline.
        .target(
            name: "WebImage",
            dependencies: [
                "WebImageCore",
                "WebImageCodecs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Named for error mapping only: HTTP/2 stream resets become `connectionLost`.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),

        // UIKit / AppKit / SwiftUI adapters over the binding (SPEC B-3). Every file is
        // conditional on its framework, so on Linux this target is empty.
        .target(
            name: "WebImageAppleAdapters",
            dependencies: ["WebImage"],
            swiftSettings: swiftSettings
        ),

        // The image service (SPEC V): imgproxy-compatible URL API on Hummingbird 2. Its own
        // module so the pipeline library never depends on an HTTP server.
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                // HTTP/1.0 close semantics on keep-alive connections (ClientConnection.swift).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The shared event loops, a source downloader per loop (SourceStore.swift).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),

        // Shared test support: corpus manifest, reference PNG reader, pixel comparison.
        .target(
            name: "WebImageTesting",
            dependencies: [
                "WebImageCore",
                "CSPNG",
                // The TIFF test files are written with libtiff itself.
                "CTIFF",
                // HEIC/AVIF files with thumbnails are written with libheif itself.
                "CHEIF",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // The command-line tool. `webimage demo` serves its gallery with its own small static
        // HTTP server on NIOHTTP1 (DemoServer); no test-support code ships in the binary.
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage",
                "WebImageServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Decode benchmark driver (Benchmarks/run-decode.sh compares it with C, Pillow, libvips).
        .executableTarget(
            name: "webimage-bench",
            // CLCMS2: the colour benchmark times LittleCMS itself on the same pixels.
            dependencies: ["WebImageCodecs", "WebImageCore", "CLCMS2"],
            path: "Benchmarks/Sources/webimage-bench",
            swiftSettings: swiftSettings
        ),

        // Resize benchmark driver (scripts/bench-resize.sh compares it with Pillow and libvips).
        // A target of this package like the other drivers: one small file over WebImageCore,
        // which every build compiles anyway.
        .executableTarget(
            name: "webimage-resize-bench",
            dependencies: ["WebImageCore"],
            path: "Benchmarks/Sources/webimage-resize-bench",
            swiftSettings: swiftSettings
        ),

        // Pipeline benchmark driver: memory-hit overhead and end-to-end loads over loopback.
        .executableTarget(
            name: "webimage-pipeline-bench",
            dependencies: [
                "WebImage", "WebImageTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ],
            path: "Benchmarks/Sources/webimage-pipeline-bench",
            swiftSettings: swiftSettings
        ),

        // libFuzzer targets (`make fuzz-coverage` builds it with -sanitize=fuzzer,address and
        // -DWEBIMAGE_LIBFUZZER); the ordinary build is a replayer of inputs through a target.
        .executableTarget(
            name: "webimage-fuzz",
            dependencies: [
                "WebImage", "WebImageServer", "WebImageCodecs", "WebImageCore", "WebImageTesting",
                // The reduced JPEG decode's differential target calls it and TurboJPEG directly.
                "CJPEGReduced", "CTurboJPEG",
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
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
            // CAVIF, CJXL, CTIFF: the AVIF, JPEG XL and TIFF tests write their own files with
            // libavif / libjxl / libtiff; CTurboJPEG: TurboJPEG's own 1/8 decode, the reference
            // for the reduced-scan decode.
            // CJPEGReduced: the reduced-scan tests call our 1/8 decoder directly, to see it decode.
            dependencies: ["WebImageCodecs", "WebImageCore", "WebImageTesting", "CAVIF", "CJXL", "CTIFF", "CTurboJPEG", "CJPEGReduced"],
            swiftSettings: swiftSettings
        ),
        // Colour management (SPEC G): tagged inputs are made at test time with LittleCMS, which
        // is also the reference the decoded pixels are compared with.
        .testTarget(
            name: "WebImageColorTests",
            dependencies: ["WebImageCodecs", "WebImageCore", "WebImageTesting", "CLCMS2", "CSPNG", "CTurboJPEG", "CJXL", "CAVIF", "CHEIF", "CTIFF"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebImageTests",
            // NIOSSL: the TLS tests build a `TLSConfiguration` that trusts the test certificate.
            // MetricsTestKit: the metrics tests give a manager a `TestMetrics` factory.
            // NIOEmbedded: the egress proxy's splice ends are tested on embedded channels.
            dependencies: [
                "WebImage", "WebImageTesting", .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The image service over real HTTP on loopback (origins are WebImageTesting servers).
        .testTarget(
            name: "WebImageServerTests",
            dependencies: [
                "WebImageServer", "WebImage", "WebImageTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Runs the built `webimage` binary (found next to the test bundle) as a subprocess.
        .testTarget(
            name: "WebImageCLITests",
            // AsyncHTTPClient: the `webimage serve` tests request the running service.
            dependencies: [
                "WebImageTesting", "WebImageCore", "WebImageCodecs",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
