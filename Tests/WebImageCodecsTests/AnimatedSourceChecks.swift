import Foundation
import Testing
import WebImageCore

/// Checks that a coder's lazy animated source gives exactly what a full decode gives: frame
/// count, loop count and canvas; every frame's pixels and duration in order; the same pixels
/// again after seeking back and forth (sources restart to seek back); an error past the end.
func expectAnimatedSourceMatchesDecode(
    _ coder: some AnimatedImageDecoding, _ data: Data, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let image = try coder.decode(data, options: .default)
    let source = try coder.makeAnimatedSource(data, options: .default)
    #expect(source.frameCount == image.frames.count, sourceLocation: sourceLocation)
    #expect(source.loopCount == image.loopCount, sourceLocation: sourceLocation)
    #expect(source.canvasSize == image.pixelSize, sourceLocation: sourceLocation)
    let count = min(source.frameCount, image.frames.count)
    let seeks = [0, count - 1, 2, 1, 1, 0].filter { $0 >= 0 && $0 < count }
    for index in Array(0..<count) + seeks {
        #expect(try source.frame(at: index).bytes == image.frames[index].pixels.bytes, "frame \(index)", sourceLocation: sourceLocation)
        #expect(source.duration(ofFrame: index) == image.frames[index].duration, "frame \(index)", sourceLocation: sourceLocation)
    }
    #expect(throws: WebImageError.self, sourceLocation: sourceLocation) { _ = try source.frame(at: source.frameCount) }
}
