import ArgumentParser
import WebImage

/// `webimage`: the command-line face of swift-web-image.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Download, decode, cache, convert and inspect images.",
        version: "0.1.0",
        subcommands: [InfoCommand.self, ConvertCommand.self, DemoCommand.self, CacheCommand.self, FetchCommand.self, PrefetchCommand.self, ServeCommand.self, SignCommand.self]
    )

    /// Sets up logging (``ToolLogging``) and the codec-output filter (``CodecOutputFilter``),
    /// then parses and runs the command.
    static func main() async {
        ToolLogging.bootstrap()
        CodecOutputFilter.install()
        await main(nil)
    }
}
