import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `jpeg_options`' `quant_table` and the `jpeg-quant-table` setting over loopback HTTP: table 0
/// writes the JPEG Annex K tables, 1 flat ones, 2–8 mozjpeg's sets, read from the file's DQT
/// segments.
@Suite(.timeLimit(.minutes(2))) struct ServiceJPEGQuantTableTests {
    /// The 8-bit quantisation tables of the JPEG's DQT segments, by table id.
    static func quantTables(_ data: Data) -> [Int: [UInt8]] {
        let bytes = [UInt8](data)
        var index = 2, tables: [Int: [UInt8]] = [:]
        while index + 4 < bytes.count, bytes[index] == 0xFF, bytes[index + 1] != 0xDA {
            let marker = bytes[index + 1], length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xDB {
                var at = index + 4
                while at + 65 <= index + 2 + length, at + 65 <= bytes.count, bytes[at] >> 4 == 0 {
                    tables[Int(bytes[at] & 0x0F)] = Array(bytes[(at + 1)..<(at + 65)])
                    at += 65
                }
            }
            index += 2 + length
        }
        return tables
    }

    private static func start(_ configure: @escaping (inout ImageServiceConfiguration) -> Void = { _ in }) async throws -> ServiceHarness {
        let harness = try await ServiceHarness.start(configure)
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        return harness
    }

    private func jpeg(_ harness: ServiceHarness, _ options: String) async throws -> Data? {
        let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "jpg"))
        #expect(reply.status == 200, "\(options): \(reply.text)")
        return reply.status == 200 ? reply.body : nil
    }

    @Test("Given quant_table 1, then both tables are flat at the quality's step; 0 writes the Annex K tables")
    func flatTable() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let plain = try #require(try await jpeg(harness, "q:50"))
        let annexK = Self.quantTables(plain)
        #expect(annexK[0]?.first == 16 && annexK[0]?.contains(121) == true, "Annex K's luma table at quality 50: \(annexK)")
        let flat = try #require(try await jpeg(harness, "q:50/jpgo::::::1"))
        let tables = Self.quantTables(flat)
        #expect(tables.count == 2)
        #expect(tables.values.allSatisfy { $0 == [UInt8](repeating: 16, count: 64) }, "\(tables)")
        // libjpeg's quality curve: quality 75 scales by 50 %, a step of 8.
        let flat75 = try #require(try await jpeg(harness, "q:75/jpgo::::::1"))
        #expect(Self.quantTables(flat75).values.allSatisfy { $0 == [UInt8](repeating: 8, count: 64) })
        #expect(try TestImages.decode(flat).pixelSize == PixelSize(width: 64, height: 48))
        let progressiveFlat = try #require(try await jpeg(harness, "q:50/jpgo:1:1::::1"))
        #expect(ServiceEncoderOptionsTests.startOfFrame(progressiveFlat)?.marker == 0xC2)
        #expect(ServiceEncoderOptionsTests.startOfFrame(progressiveFlat)?.sampling == [0x11, 0x11, 0x11])
        #expect(Self.quantTables(progressiveFlat).values.allSatisfy { $0 == [UInt8](repeating: 16, count: 64) })
        let zero = try #require(try await jpeg(harness, "q:50/jpgo::::::0"))
        #expect(Self.quantTables(zero) == annexK)
        #expect(harness.origin.requestCount("/src.png") == 5)
    }

    /// The JPEG zigzag order: `zigzag[k]` is the natural (row-major) index of the k-th value.
    static let zigzag = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55,
        62, 63,
    ]

    /// A DQT table in natural order.
    static func natural(_ zigzagged: [UInt8]) -> [Int] {
        var out = [Int](repeating: 0, count: 64)
        for (k, value) in zigzagged.enumerated() { out[zigzag[k]] = Int(value) }
        return out
    }

    /// Per table set at quality 50 (libjpeg's scale 100: the published steps as they are, over
    /// 255 limited to 255): the luma table's first row and last step, and the chroma table's
    /// first row where the set has a chroma table of its own (mozjpeg's `-quant-table N`).
    static let published: [Int: (luma: [Int], lastLuma: Int, chroma: [Int]?)] = [
        2: ([12, 17, 20, 21, 30, 34, 56, 63], 103, [8, 12, 15, 15, 86, 96, 96, 98]),
        3: ([16, 16, 16, 18, 25, 37, 56, 85], 255, nil),
        4: ([9, 10, 12, 14, 27, 32, 51, 62], 98, [9, 10, 17, 19, 62, 89, 91, 97]),
        5: ([10, 12, 14, 19, 26, 38, 57, 86], 255, nil),
        6: ([7, 8, 10, 14, 23, 44, 95, 241], 255, nil),
        7: ([15, 11, 11, 12, 15, 19, 25, 32], 77, nil),
        8: ([14, 10, 11, 14, 19, 25, 34, 45], 108, nil),
    ]

    @Test("Given quant_table 2 to 8, then the DQT holds mozjpeg's table set of that number, scaled by the quality")
    func mozjpegTables() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        var seen: Set<[Int]> = []
        for table in 2...8 {
            let data = try #require(try await jpeg(harness, "q:50/jpgo::::::\(table)"))
            let tables = Self.quantTables(data)
            let luma = try #require(tables[0].map(Self.natural), "table \(table): \(tables)")
            let chroma = try #require(tables[1].map(Self.natural), "table \(table): \(tables)")
            let expected = try #require(Self.published[table])
            #expect(Array(luma[0..<8]) == expected.luma, "table \(table) luma: \(luma)")
            #expect(luma[63] == expected.lastLuma, "table \(table) luma: \(luma)")
            if let ownChroma = expected.chroma {
                #expect(Array(chroma[0..<8]) == ownChroma, "table \(table) chroma: \(chroma)")
            } else {
                #expect(chroma == luma, "table \(table): chroma is the luma table")
            }
            seen.insert(luma)
            #expect(try TestImages.decode(data).pixelSize == PixelSize(width: 64, height: 48))
        }
        #expect(seen.count == 7, "seven different luma tables")
        // libjpeg's quality curve: quality 75 halves each step, rounding half up.
        let q75 = try #require(try await jpeg(harness, "q:75/jpgo::::::7"))
        let luma75 = try #require(Self.quantTables(q75)[0].map(Self.natural))
        #expect(Array(luma75[0..<8]) == [8, 6, 6, 6, 8, 10, 13, 16], "\(luma75)")
        // Progressive and 4:4:4 combine with a table set.
        let progressive = try #require(try await jpeg(harness, "q:50/jpgo:1:1::::5"))
        #expect(ServiceEncoderOptionsTests.startOfFrame(progressive)?.marker == 0xC2)
        #expect(ServiceEncoderOptionsTests.startOfFrame(progressive)?.sampling == [0x11, 0x11, 0x11])
        #expect(Self.quantTables(progressive)[0].map(Self.natural).map { Array($0[0..<8]) } == Self.published[5]?.luma)
        #expect(harness.origin.requestCount("/src.png") == 9)
    }

    @Test("Given the jpeg-quant-table setting 1, then results are flat unless the URL asks for table 0")
    func setting() async throws {
        let harness = try await Self.start { $0.jpegOptions = JPEGOptions(quantTable: 1) }
        defer { Task { await harness.stop() } }
        let byDefault = try #require(try await jpeg(harness, "q:50"))
        #expect(Self.quantTables(byDefault).values.allSatisfy { $0 == [UInt8](repeating: 16, count: 64) })
        let annexK = try #require(try await jpeg(harness, "q:50/jpgo::::::0"))
        #expect(Self.quantTables(annexK)[0]?.contains(121) == true, "the URL's table over the setting's")
        #expect(harness.origin.requestCount("/src.png") == 2)
    }
}
