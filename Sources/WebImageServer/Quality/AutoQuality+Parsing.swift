import Foundation

extension AutoQuality {
    /// The `autoquality`/`aq` option: `method[:target[:min[:max[:allowed_error]]]]`, every
    /// argument optional as in imgproxy, where they redefine the `autoquality-*` settings: an
    /// empty method is `base`'s (the service's setting), and an empty or missing argument is
    /// `base`'s when the method is `base`'s, else the method's default (``defaults(for:)``).
    /// `s2` is short for `ssimulacra2`; `ml` (imgproxy's neural-network prediction) is refused.
    static func parse(_ values: [String], over base: AutoQuality = .none) throws(AutoQualityProblem) -> AutoQuality {
        guard (1...5).contains(values.count) else { throw AutoQualityProblem("expected 1 to 5 arguments, got \(values.count)") }
        let methodName = values[0]
        let method: Method
        switch methodName {
        case "none": method = .none
        case "size": method = .size
        case "dssim": method = .dssim
        case "ssimulacra2", "s2": method = .ssimulacra2
        case "ml": throw AutoQualityProblem("method 'ml' (a neural network) is not available; use ssimulacra2, dssim or size")
        case "": method = base.method
        default: throw AutoQualityProblem("unknown method '\(methodName)'; expected none, size, dssim or ssimulacra2")
        }
        var result = method == base.method ? base : defaults(for: method)
        func given(_ index: Int) -> String? { index < values.count && !values[index].isEmpty ? values[index] : nil }
        func number(_ index: Int, _ name: String) throws(AutoQualityProblem) -> Double {
            guard let value = Double(values[index]), value.isFinite else { throw AutoQualityProblem("\(name) '\(values[index])' is not a number") }
            return value
        }
        func quality(_ index: Int, _ name: String) throws(AutoQualityProblem) -> Int {
            guard let value = Int(values[index]), (1...100).contains(value) else {
                throw AutoQualityProblem("\(name) '\(values[index])' is not an integer quality from 1 to 100")
            }
            return value
        }
        if given(1) != nil {
            let target = try number(1, "target")
            switch method {
            case .none: break
            case .size:
                guard target >= 1, target <= Double(maximumSizeTarget), target == target.rounded() else {
                    throw AutoQualityProblem("size target '\(values[1])' is not a byte count from 1 to \(maximumSizeTarget)")
                }
            case .dssim:
                guard target > 0, target <= 1 else { throw AutoQualityProblem("dssim target '\(values[1])' is not from 0 (exclusive) to 1") }
            case .ssimulacra2:
                guard target >= 0, target <= 100 else { throw AutoQualityProblem("ssimulacra2 target '\(values[1])' is not from 0 to 100") }
            }
            result.target = target
        }
        if given(2) != nil { result.minQuality = try quality(2, "min quality") }
        if given(3) != nil { result.maxQuality = try quality(3, "max quality") }
        if given(2) != nil, given(3) == nil { result.maxQuality = max(result.maxQuality, result.minQuality) }
        if given(3) != nil, given(2) == nil { result.minQuality = min(result.minQuality, result.maxQuality) }
        guard result.minQuality <= result.maxQuality else {
            throw AutoQualityProblem("min quality \(result.minQuality) is above max quality \(result.maxQuality)")
        }
        if given(4) != nil {
            let allowed = try number(4, "allowed error")
            let limit: Double = method == .ssimulacra2 ? 100 : 1
            guard allowed >= 0, allowed <= limit else {
                throw AutoQualityProblem("allowed error '\(values[4])' is not from 0 to \(Int(limit))")
            }
            result.allowedError = allowed
        }
        // `none` searches nothing: its arguments are checked and otherwise mean nothing.
        return method == .none ? .none : result
    }

    /// Per-format qualities from a setting's text: `avif=60,webp=75`.
    static func formatQualities(_ text: String) throws(AutoQualityProblem) -> [OutputFormat: Int] {
        var result: [OutputFormat: Int] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let format = OutputFormat(name: parts[0]), let quality = Int(parts[1]), (1...100).contains(quality) else {
                throw AutoQualityProblem("'\(pair)' is not FORMAT=QUALITY (1-100)")
            }
            result[format] = quality
        }
        return result
    }
}

/// Why an `autoquality` value was refused.
struct AutoQualityProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
