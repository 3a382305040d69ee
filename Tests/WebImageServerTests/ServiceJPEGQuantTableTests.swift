import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `jpeg_options`' `quant_table` and the `jpeg-quant-table` setting over loopback HTTP: table 1
/// writes flat quantisation tables, every other number the JPEG Annex K ones, read from the
/// file's DQT segments.
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

    @Test("Given quant_table 1, then both tables are flat at the quality's step; 0 and 2-8 write the Annex K tables")
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
        for table in [0, 2, 8] {
            let other = try #require(try await jpeg(harness, "q:50/jpgo::::::\(table)"))
            #expect(Self.quantTables(other) == annexK, "table \(table)")
        }
        #expect(harness.origin.requestCount("/src.png") == 7)
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
