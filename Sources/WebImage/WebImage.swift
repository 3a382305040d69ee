// The library users import. It re-exports the image model and the codecs so that
// `import WebImage` is all an application needs.
@_exported import WebImageCodecs
@_exported import WebImageCore
