import Foundation

/// Options and context for one request, as an ``OptionsProcessor`` sees and returns them.
public struct OptionsResult: Sendable {
    /// The request's options.
    public var options: WebImageOptions
    /// The request's context.
    public var context: WebImageContext

    public init(options: WebImageOptions, context: WebImageContext) {
        self.options = options
        self.context = context
    }
}

/// A global hook that may rewrite the options and context of any request before it runs
/// (SPEC M-7): for example add `.retryFailed` for one host, or a thumbnail size for all GIFs.
public protocol OptionsProcessor: Sendable {
    /// The options and context to use for loading `url`. Return the input unchanged to leave a
    /// request alone.
    func process(_ url: URL, _ input: OptionsResult) -> OptionsResult
}

/// An ``OptionsProcessor`` made from a closure.
public struct OptionsProcessorClosure: OptionsProcessor {
    private let body: @Sendable (URL, OptionsResult) -> OptionsResult

    /// A processor that calls `body`.
    public init(_ body: @escaping @Sendable (URL, OptionsResult) -> OptionsResult) {
        self.body = body
    }

    public func process(_ url: URL, _ input: OptionsResult) -> OptionsResult { body(url, input) }
}
