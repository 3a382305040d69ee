import Foundation

extension ImageServiceSettings {
    /// The `jpeg-*`, `png-*` and `webp-*` settings (imgproxy's `IMGPROXY_JPEG_*`,
    /// `IMGPROXY_PNG_*`, `IMGPROXY_WEBP_*`): what requests whose `jpeg_options`, `png_options`
    /// or `webp_options` leave a field out (or that have none) get.
    static let encoderOptionSettings: [Setting] = [
        Setting(name: "jpeg-progressive", meaning: "write progressive JPEGs (URL option jpgo overrides)", defaultValue: "false", repeatable: false),
        Setting(name: "jpeg-no-subsample", meaning: "keep full-resolution chroma (4:4:4) in JPEGs at every quality; otherwise 4:2:0 below quality 90", defaultValue: "false", repeatable: false),
        Setting(name: "jpeg-trellis-quant", meaning: "accepted for imgproxy compatibility; no effect (a mozjpeg feature libjpeg-turbo lacks)", defaultValue: "false", repeatable: false),
        Setting(name: "jpeg-overshoot-deringing", meaning: "accepted for imgproxy compatibility; no effect (a mozjpeg feature libjpeg-turbo lacks)", defaultValue: "false", repeatable: false),
        Setting(name: "jpeg-optimize-scans", meaning: "accepted for imgproxy compatibility; no effect (a mozjpeg feature libjpeg-turbo lacks)", defaultValue: "false", repeatable: false),
        Setting(name: "jpeg-quant-table", meaning: "quantization table set 0-8 (mozjpeg numbers): 0 JPEG Annex K, 1 flat, 2 MS-SSIM-tuned, 3 ImageMagick (N. Robidoux), 4 PSNR-HVS-tuned, 5 Klein-Silverstein-Carney, 6 Watson-Taylor-Borthwick, 7 Ahumada-Watson-Peterson, 8 Peterson-Ahumada-Watson", defaultValue: "0", repeatable: false),
        Setting(name: "png-interlaced", meaning: "write Adam7-interlaced PNGs (still images; URL option pngo overrides)", defaultValue: "false", repeatable: false),
        Setting(name: "png-quantize", meaning: "write still PNGs as 8-bit palettes (median cut, no dithering, 1-bit transparency)", defaultValue: "false", repeatable: false),
        Setting(name: "png-quantization-colors", meaning: "most palette entries of a quantized PNG, 2-256", defaultValue: "256", repeatable: false),
        Setting(name: "webp-compression", meaning: "WebP compression: lossy, near_lossless (the quality is the near-lossless level) or lossless (URL option webpo overrides)", defaultValue: "lossy", repeatable: false),
        Setting(name: "webp-smart-subsample", meaning: "libwebp's sharp RGB→YUV conversion: slower, larger, truer colour edges", defaultValue: "false", repeatable: false),
        Setting(name: "webp-preset", meaning: "libwebp content preset: default, photo, picture, drawing, icon or text", defaultValue: "default", repeatable: false),
    ]

    /// Reads the `jpeg-*`, `png-*` and `webp-*` settings into `configuration`, checked as the URL
    /// options are.
    static func applyEncoderOptions(_ values: [String: [String]], to configuration: inout ImageServiceConfiguration) throws(Problem) {
        func arguments(_ names: [String], booleans: Set<String>) -> [String]? {
            let texts = names.map { name -> String in
                guard let text = values[name]?.last else { return "" }
                guard booleans.contains(name) else { return text }
                switch text.lowercased() {
                case "yes", "on": return "true"
                case "no", "off": return "false"
                default: return text.lowercased()
                }
            }
            return texts.contains { !$0.isEmpty } ? texts : nil
        }
        do {
            let jpeg = ["jpeg-progressive", "jpeg-no-subsample", "jpeg-trellis-quant", "jpeg-overshoot-deringing", "jpeg-optimize-scans", "jpeg-quant-table"]
            if let given = arguments(jpeg, booleans: Set(jpeg.dropLast())) {
                configuration.jpegOptions = try JPEGOptions.parse(given, option: "jpeg-*")
            }
            if let given = arguments(["png-interlaced", "png-quantize", "png-quantization-colors"], booleans: ["png-interlaced", "png-quantize"]) {
                configuration.pngOptions = try PNGOptions.parse(given, option: "png-*")
            }
            if let given = arguments(["webp-compression", "webp-smart-subsample", "webp-preset"], booleans: ["webp-smart-subsample"]) {
                configuration.webpOptions = try WebPOptions.parse(given, option: "webp-*")
            }
        } catch {
            throw Problem(description: "\(error)")
        }
    }
}
