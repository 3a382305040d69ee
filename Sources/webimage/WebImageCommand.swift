import ArgumentParser
import Logging
import WebImage

/// `webimage`: the command-line face of swift-web-image.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Download, decode, cache, convert and inspect images.",
        version: "0.1.0",
        subcommands: [InfoCommand.self, ConvertCommand.self, CompareCommand.self, DemoCommand.self, CacheCommand.self, FetchCommand.self, PrefetchCommand.self, ServeCommand.self, SignCommand.self]
    )

    /// Sets up logging (``ToolLogging``) and the library's codec-output capture
    /// (`CodecOutputCapture`: libjxl's own lines are dropped, or with `WEBIMAGE_LOG_LEVEL=debug`
    /// or `trace` written as `codec library: <line>`), then parses and runs the command.
    static func main() async {
        ToolLogging.bootstrap()
        let showsCodecLines = ToolLogging.level() <= .debug
        CodecOutputCapture.install { line in
            if showsCodecLines { Console.note("codec library: \(line)") }
        }
        await main(ServeCommand.expandingBareFlags(Array(CommandLine.arguments.dropFirst())))
    }
}
