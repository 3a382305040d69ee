import Testing
@testable import WebImage

@Suite("HTTP dates")
struct HTTPDateTests {
    @Test("Given IMF-fixdates, then seconds since 1970 are exact", arguments: [
        ("Thu, 01 Jan 1970 00:00:00 GMT", Int64(0)),
        ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),
        ("Tue, 29 Feb 2000 23:59:59 GMT", Int64(951_868_799)),
        ("Sat, 21 Nov 2026 10:00:00 GMT", Int64(1_795_255_200)),
    ])
    func parses(_ text: String, _ seconds: Int64) {
        #expect(HTTPDate.seconds(text) == seconds)
    }

    @Test("Given other forms or garbage, then nil", arguments: [
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 36 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "", "garbage",
    ])
    func rejects(_ text: String) {
        #expect(HTTPDate.seconds(text) == nil)
    }
}
