import Foundation
import Testing
import WebImage
import WebImageServer

@Suite struct ResultStoreSettingsTests {
    @Test func aDirectoryOrFileURLNamesADirectoryStore() throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for value in [directory.path, "file://" + directory.path] {
            let (configuration, _, _) = try ImageServiceSettings.configuration(from: ["result-store": [value], "result-store-timeout": ["0.5"]])
            let store = try #require(configuration.resultStore as? DirectoryResultStore)
            #expect(store.directory.path == directory.standardizedFileURL.path)
            #expect(configuration.resultStoreTimeout == 0.5)
        }
        #expect(try ImageServiceSettings.configuration(from: [:]).0.resultStore == nil)
        #expect(ImageServiceSettings.values(fromEnvironment: ["WEBIMAGE_RESULT_STORE": "/x"])["result-store"] == ["/x"])
    }

    @Test func badValuesAreRefusedInPlainWords() throws {
        func problem(_ values: [String: [String]]) -> String? {
            do {
                _ = try ImageServiceSettings.configuration(from: values)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(problem(["result-store": ["s3://"]])?.contains("not a bucket name") == true)
        #expect(problem(["result-store": ["s3://bucket/a?b"]])?.contains("no ? or #") == true)
        #expect(problem(["result-store": ["s3://bucket/x"], "s3-endpoint": ["ftp://x"]])?.contains("s3-endpoint") == true)
        #expect(problem(["result-store": ["/no/such/webimage/directory"]])?.contains("not an existing directory") == true)
        #expect(problem(["result-store": ["ftp://host/x"]]) != nil)
        #expect(problem(["result-store-timeout": ["0"]]) != nil)
        #expect(problem(["result-store-timeout": ["soon"]]) != nil)
    }

    @Test func anS3LocationNamesAnS3StoreAtTheS3Endpoint() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "eu-west-1", "HOME": "/nonexistent-home"]
        let values: [String: [String]] = [
            "result-store": ["s3://results/renders/v1/"], "s3-endpoint": ["http://127.0.0.1:9000"], "s3-denied-bucket": ["results"],
        ]
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: values, environment: environment)
        let store = try #require(configuration.resultStore as? S3ResultStore)
        #expect(store.bucket == "results" && store.prefix == "renders/v1" && store.url == "s3://results/renders/v1")
        #expect(store.location(for: ResultStoreKey(canonicalRequest: "x")).key.hasPrefix("renders/v1/"))
        #expect(store.client.configuration.endpoint?.absoluteString == "http://127.0.0.1:9000")
        #expect(store.client.configuration.region == "eu-west-1")
        #expect(store.client.configuration.credentials?.accessKeyID == "AKID")
        #expect(configuration.s3 == nil, "an S3 result store does not turn on s3:// sources")
        let bare = try ImageServiceSettings.configuration(from: ["result-store": ["s3://results"]], environment: environment).0
        #expect((bare.resultStore as? S3ResultStore)?.prefix == "")
    }
}
