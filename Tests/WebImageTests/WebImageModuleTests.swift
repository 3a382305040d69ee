import Testing
import WebImage

@Suite("WebImage module")
struct WebImageModuleTests {
    @Test("Given the umbrella module, then the shared coders manager is reachable")
    func sharedManager() {
        _ = CodersManager.shared.coders
    }
}
