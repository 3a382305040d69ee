import Foundation
import Testing
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
        #expect(problem(["result-store": ["s3://bucket/prefix"]])?.contains("needs --use-s3") == true)
        #expect(problem(["result-store": ["/no/such/webimage/directory"]])?.contains("not an existing directory") == true)
        #expect(problem(["result-store": ["ftp://host/x"]]) != nil)
        #expect(problem(["result-store-timeout": ["0"]]) != nil)
        #expect(problem(["result-store-timeout": ["soon"]]) != nil)
    }
}
