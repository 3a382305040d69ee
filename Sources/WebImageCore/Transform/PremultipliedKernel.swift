import CResampleKernels

/// The horizontal weights of a ``KernelTable`` in 16-bit fixed point for rows with
/// transparency, which are filtered on exactly premultiplied integers.
///
/// Each pixel becomes `x·a − 32768` per channel (`x` its red, green, blue, and 255 for alpha),
/// which is `x·a/255` in units of `1/255` and fits `Int16`; neighbouring pixels are laid out as
/// channel pairs, the layout of the weights, so the multiply-adds need no reordering
/// (`wi_resample_horizontal_premultiplied` in `CResampleKernels`). The sums are exact; against
/// the `Float` path the only differences are the weights' rounding to `1 / 2^precision` and the
/// `Float` conversion of each exact sum, both far below a level.
struct PremultipliedKernel {
    /// The weights in the wide kernels' block layout (as ``FixedPointKernel/taps``).
    let taps: [Int16]
    /// Blocks of eight positions per output in ``taps``.
    let blockStride: Int
    /// The same weights packed and counted from a multiple of eight, for the AVX-512 VNNI kernel
    /// (as ``FixedPointKernel/packedTaps``).
    let packedTaps: [Int16]
    /// Blocks of eight positions per output in ``packedTaps``.
    let packedBlockStride: Int
    /// How that kernel groups the outputs by four (`wi_resample_packed_plan`).
    let plan: [Int32]
    /// The weights' fractional bits (at most 15, so that the offset sum fits 32 bits).
    let precision: Int
    /// The largest sum of one output's weights' magnitudes, in units of `2^-precision`.
    let widest: Int

    /// The premultiplied form of `table`, or `nil` when its weights do not fit 16 bits with
    /// useful precision or a sum could overflow 32 bits (then the `Float` path is used).
    init?(_ table: KernelTable) {
        guard let precision = table.fixedPointPrecision(limit: 15) else { return nil }
        let outputs = table.counts.count
        let blockStride = (table.stride + 1 + 7) / 8
        var taps = [Int16](repeating: 0, count: outputs * blockStride * 32)
        let packedBlockStride = (table.stride + 7 + 7) / 8
        var packedTaps = [Int16](repeating: 0, count: outputs * packedBlockStride * 8)
        var quantised = [Int](repeating: 0, count: table.stride + 1)
        var widest = 0
        for output in 0..<outputs {
            let (largest, magnitude) = table.quantise(output: output, one: 1 << precision, into: &quantised)
            // Values reach ±32768, so Σ|w| ≤ 65535 keeps every partial sum within Int32.
            guard largest <= 32767, magnitude <= 65535 else { return nil }
            widest = max(widest, magnitude)
            let odd = table.starts[output] & 1
            for k in 0..<table.counts[output] {
                let j = k + odd, position = j % 8
                let at = (output * blockStride + j / 8) * 32 + position / 2 * 8 + position % 2
                let w = Int16(quantised[k])
                (taps[at], taps[at + 2], taps[at + 4], taps[at + 6]) = (w, w, w, w)
                packedTaps[output * packedBlockStride * 8 + k + (table.starts[output] & 7)] = w
            }
        }
        self.taps = taps
        self.blockStride = blockStride
        self.packedTaps = packedTaps
        self.packedBlockStride = packedBlockStride
        self.plan = table.starts.withUnsafeBufferPointer { starts in
            table.counts.withUnsafeBufferPointer { counts in
                let count = wi_resample_packed_plan_count(outputs)
                return [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
                    wi_resample_packed_plan(outputs, starts.baseAddress, counts.baseAddress, buffer.baseAddress)
                    initialized = count
                }
            }
        }
        self.precision = precision
        self.widest = widest
    }

    /// Whether ``filter16(level:_:width:table:pairs:into:next:)``'s values fit `Int16`: the weights' magnitudes add up to at most 2, so they stay within
    /// −255…510 levels before the offset, as ``OpaqueRows`` needs.
    var fitsInt16: Bool { widest <= 2 << precision }

    /// The `Int16` values ``filter(level:_:width:table:pairs:into:)`` needs in `pairs` for rows
    /// of `width` pixels.
    static func pairCount(width: Int) -> Int { (4 * width + 64) * 4 }

    /// One RGBA8 source row (`width` pixels) filtered horizontally into `output` as
    /// premultiplied floats in 0…255 units, like ``KernelTable/convolve(_:into:)`` after
    /// ``Premultiplied/loadRow(_:count:into:)``. Returns whether every pixel it loaded is opaque.
    /// `pairs`: ``pairCount(width:)`` initialised values, reused from row to row. `level`: the
    /// ``WideKernels`` set (0 for portable C; the values are the same with every set).
    @inline(__always)
    func filter(
        level: Int32, _ row: UnsafePointer<UInt8>, width: Int, table: KernelTable, pairs: UnsafeMutablePointer<Int16>,
        into output: UnsafeMutablePointer<SIMD4<Float>>
    ) -> Bool {
        table.starts.withUnsafeBufferPointer { starts in
            table.counts.withUnsafeBufferPointer { counts in
                taps.withUnsafeBufferPointer { taps in
                    UnsafeMutableRawPointer(output).withMemoryRebound(to: Float.self, capacity: starts.count * 4) { out in
                        wi_resample_horizontal_premultiplied(
                            level, row, width, table.firstInput & ~1, table.endInput, starts.count, starts.baseAddress,
                            counts.baseAddress, taps.baseAddress, blockStride, Int32(precision), pairs, out) != 0
                    }
                }
            }
        }
    }

    /// ``filter(level:_:width:table:pairs:into:)`` into `output` as ``OpaqueRows`` values,
    /// `(v − 128) · 128` rounded to nearest, for ``resampleVertical(level:_:count:weights:output:width:into:)``
    /// (only when ``fitsInt16``). `next`: the row filtered next, if any (level 4 prefetches it).
    @inline(__always)
    func filter16(
        level: Int32, _ row: UnsafePointer<UInt8>, width: Int, table: KernelTable, pairs: UnsafeMutablePointer<Int16>,
        into output: UnsafeMutablePointer<SIMD4<Int16>>, next: UnsafePointer<UInt8>? = nil
    ) -> Bool {
        if level == 4 {
            // The packed weights, the row premultiplied once into `pairs` as channel lanes.
            return table.starts.withUnsafeBufferPointer { starts in
                table.counts.withUnsafeBufferPointer { counts in
                    packedTaps.withUnsafeBufferPointer { taps in
                        plan.withUnsafeBufferPointer { plan in
                            UnsafeMutableRawPointer(output).withMemoryRebound(to: Int16.self, capacity: starts.count * 4) { out in
                                wi_resample_horizontal_premultiplied16_packed(
                                    level, row, width, starts.count, starts.baseAddress, counts.baseAddress, plan.baseAddress,
                                    taps.baseAddress, packedBlockStride, Int32(precision), pairs, out, next) != 0
                            }
                        }
                    }
                }
            }
        }
        return table.starts.withUnsafeBufferPointer { starts in
            table.counts.withUnsafeBufferPointer { counts in
                taps.withUnsafeBufferPointer { taps in
                    UnsafeMutableRawPointer(output).withMemoryRebound(to: Int16.self, capacity: starts.count * 4) { out in
                        wi_resample_horizontal_premultiplied16(
                            level, row, width, table.firstInput & ~1, table.endInput, starts.count, starts.baseAddress,
                            counts.baseAddress, taps.baseAddress, blockStride, Int32(precision), pairs, out) != 0
                    }
                }
            }
        }
    }

    /// Two source rows filtered as ``filter16(level:_:width:table:pairs:into:next:)`` filters
    /// one, `row0` into `output0` and `row1` into `output1`, at level 4 only (each weight load
    /// serves both). `pairs`: ``pairCount(width:)`` values for two rows. `next`: the row filtered
    /// after `row1`, if any.
    @inline(__always)
    func filter16Pair(
        level: Int32, _ row0: UnsafePointer<UInt8>, _ row1: UnsafePointer<UInt8>, width: Int, table: KernelTable,
        pairs: UnsafeMutablePointer<Int16>, into output0: UnsafeMutablePointer<SIMD4<Int16>>,
        _ output1: UnsafeMutablePointer<SIMD4<Int16>>, next: UnsafePointer<UInt8>?
    ) {
        let outputs = table.starts.count
        table.starts.withUnsafeBufferPointer { starts in
            table.counts.withUnsafeBufferPointer { counts in
                packedTaps.withUnsafeBufferPointer { taps in
                    plan.withUnsafeBufferPointer { plan in
                        UnsafeMutableRawPointer(output0).withMemoryRebound(to: Int16.self, capacity: outputs * 4) { out0 in
                            UnsafeMutableRawPointer(output1).withMemoryRebound(to: Int16.self, capacity: outputs * 4) { out1 in
                                _ = wi_resample_horizontal_premultiplied16_packed2(
                                    level, row0, row1, width, outputs, starts.baseAddress, counts.baseAddress, plan.baseAddress,
                                    taps.baseAddress, packedBlockStride, Int32(precision), pairs, out0, out1, next)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Output row `y` from `count` rows of ``filter16(level:_:width:table:pairs:into:next:)`` values (`rows[count]` readable too, its weight is zero) with the vertical weights
    /// `weights`, divided by alpha into straight RGBA8 `bytes` (as ``Premultiplied/store(_:_:_:)``).
    @inline(__always)
    static func resampleVertical(
        level: Int32, _ rows: UnsafePointer<UnsafePointer<Int16>?>, count: Int, weights: OpaqueRows, output y: Int, width: Int,
        into bytes: UnsafeMutablePointer<UInt8>
    ) {
        let shift = Int32(weights.precision + OpaqueRows.fraction)
        weights.weights.withUnsafeBufferPointer { all in
            UnsafeRawPointer(all.baseAddress! + y * weights.pairStride).withMemoryRebound(
                to: Int16.self, capacity: weights.pairStride * 8
            ) { w in
                wi_resample_vertical_premultiplied(level, rows, w, (count + 1) / 2, width, shift, bytes)
            }
        }
    }
}
