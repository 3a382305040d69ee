import Foundation
import WebImageCore

/// CIE L*a*b* (D65 white) of an 8-bit sRGB colour.
struct Lab {
    var l: Double
    var a: Double
    var b: Double

    init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }

    init(r: UInt8, g: UInt8, b: UInt8) {
        func linear(_ v: UInt8) -> Double {
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let (lr, lg, lb) = (linear(r), linear(g), linear(b))
        let x = (0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / 0.95047
        let y = 0.2126729 * lr + 0.7151522 * lg + 0.0721750 * lb
        let z = (0.0193339 * lr + 0.1191920 * lg + 0.9503041 * lb) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        l = 116 * f(y) - 16
        a = 500 * (f(x) - f(y))
        self.b = 200 * (f(y) - f(z))
    }
}

/// The CIEDE2000 colour difference (Sharma, Wu, Dalal 2005), kL = kC = kH = 1.
func ciede2000(_ p: Lab, _ q: Lab) -> Double {
    let deg = Double.pi / 180
    let c1 = (p.a * p.a + p.b * p.b).squareRoot()
    let c2 = (q.a * q.a + q.b * q.b).squareRoot()
    let cBar = (c1 + c2) / 2
    let cBar7 = pow(cBar, 7)
    let g = 0.5 * (1 - (cBar7 / (cBar7 + pow(25, 7))).squareRoot())
    let a1 = (1 + g) * p.a
    let a2 = (1 + g) * q.a
    let c1p = (a1 * a1 + p.b * p.b).squareRoot()
    let c2p = (a2 * a2 + q.b * q.b).squareRoot()
    func hue(_ b: Double, _ a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let h = atan2(b, a) / deg
        return h < 0 ? h + 360 : h
    }
    let h1 = hue(p.b, a1)
    let h2 = hue(q.b, a2)
    let dL = q.l - p.l
    let dC = c2p - c1p
    var dh = 0.0
    if c1p * c2p != 0 {
        dh = h2 - h1
        if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
    }
    let dH = 2 * (c1p * c2p).squareRoot() * sin(dh / 2 * deg)
    let lBar = (p.l + q.l) / 2
    let cBarP = (c1p + c2p) / 2
    var hBar = h1 + h2
    if c1p * c2p != 0 {
        if abs(h1 - h2) <= 180 { hBar = (h1 + h2) / 2 } else if h1 + h2 < 360 { hBar = (h1 + h2 + 360) / 2 } else {
            hBar = (h1 + h2 - 360) / 2
        }
    }
    let t = 1 - 0.17 * cos((hBar - 30) * deg) + 0.24 * cos(2 * hBar * deg) + 0.32 * cos((3 * hBar + 6) * deg)
        - 0.20 * cos((4 * hBar - 63) * deg)
    let dTheta = 30 * exp(-pow((hBar - 275) / 25, 2))
    let cBarP7 = pow(cBarP, 7)
    let rC = 2 * (cBarP7 / (cBarP7 + pow(25, 7))).squareRoot()
    let lBar50 = (lBar - 50) * (lBar - 50)
    let sL = 1 + 0.015 * lBar50 / (20 + lBar50).squareRoot()
    let sC = 1 + 0.045 * cBarP
    let sH = 1 + 0.015 * cBarP * t
    let rT = -sin(2 * dTheta * deg) * rC
    let termL = dL / sL
    let termC = dC / sC
    let termH = dH / sH
    return (termL * termL + termC * termC + termH * termH + rT * termC * termH).squareRoot()
}

/// Mean, 95th percentile and maximum CIEDE2000 between two RGBA8 buffers of one size.
struct ColorDifference: CustomStringConvertible {
    var mean: Double
    var p95: Double
    var max: Double

    init(_ x: PixelBuffer, _ y: PixelBuffer) {
        precondition(x.width == y.width && x.height == y.height)
        var values: [Double] = []
        values.reserveCapacity(x.width * x.height)
        for i in stride(from: 0, to: x.bytes.count, by: 4) {
            let p = Lab(r: x.bytes[i], g: x.bytes[i + 1], b: x.bytes[i + 2])
            let q = Lab(r: y.bytes[i], g: y.bytes[i + 1], b: y.bytes[i + 2])
            values.append(ciede2000(p, q))
        }
        values.sort()
        mean = values.reduce(0, +) / Double(values.count)
        p95 = values[min(values.count - 1, Int(Double(values.count) * 0.95))]
        max = values.last ?? 0
    }

    var description: String {
        String(format: "ΔE2000 mean %.3f, p95 %.3f, max %.3f", mean, p95, max)
    }
}
