import Foundation

#if WEBIMAGE_LIBFUZZER
    // Built with `-sanitize=fuzzer,address` (`make fuzz-coverage`): libFuzzer drives the
    // target named by WEBIMAGE_FUZZ_TARGET.

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
        FuzzTarget.selected.judge(bytes)
        return 0
    }
#else
    /// Without libFuzzer: replays inputs through a target (how a finding is reproduced), lists
    /// the targets, or writes a target's generated seeds.
    ///
    ///     webimage-fuzz --list
    ///     webimage-fuzz --seeds TARGET DIR
    ///     webimage-fuzz TARGET FILE...
    @main
    struct WebImageFuzz {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.first == "--list" {
                for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
                return
            }
            if arguments.first == "--seeds", arguments.count == 3 {
                guard let target = FuzzTarget.named(arguments[1]) else { usage() }
                let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)
                try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for (name, data) in target.seeds() {
                    try? data.write(to: directory.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_")))
                }
                return
            }
            guard arguments.count >= 2, let target = FuzzTarget.named(arguments[0]) else { usage() }
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("\(path): cannot read")
                    exit(1)
                }
                target.judge(data)
                print("\(path): ok")
            }
        }

        static func usage() -> Never {
            print("usage: webimage-fuzz --list | --seeds TARGET DIR | TARGET FILE...")
            exit(2)
        }
    }
#endif
