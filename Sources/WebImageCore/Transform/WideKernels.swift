import CResampleKernels

/// The resampler's fixed-point passes for opaque rows at the machine's vector width: AVX2 on
/// x86-64 when the CPU has it, with the horizontal pass on AVX-512BW where that is present too
/// (both checked at run time, so the same binary runs on the x86-64 baseline), NEON on arm64. They live in the C target `CResampleKernels`, whose AVX2 functions
/// carry per-function target attributes.
///
/// The arithmetic is that of ``FixedPointKernel`` and ``OpaqueRows``: exact integer sums of the
/// same quantised weights with the same rounding, so the pixels are identical to the portable
/// passes'. Only the order of the additions differs, and integer addition does not care.
enum WideKernels {
    /// Whether the machine-width passes run here. `false` on CPUs without AVX2 (and other
    /// architectures), or when `WEBIMAGE_RESAMPLE_KERNELS=portable` is set.
    static var available: Bool { level > 0 }

    /// The widest kernel set here (`wi_resample_kernels_level`): 0 none, 1 AVX2, 2 NEON,
    /// 3 AVX-512BW, 4 AVX-512BW with VBMI and VNNI.
    static let level: Int32 = wi_resample_kernels_level()

    /// Every kernel set this machine runs, widest first (tests compare each with the portable
    /// passes).
    static var levels: [Int32] {
        switch level {
        case 4: [4, 3, 1]
        case 3: [3, 1]
        case 0: []
        default: [level]
        }
    }

    /// Whether kernel set `level` has the premultiplied passes for rows with transparency
    /// (``PremultipliedKernel``): AVX2 and both AVX-512 sets. Elsewhere their portable C is slower than
    /// the `Float` path, so those rows take that.
    static func hasPremultiplied(_ level: Int32) -> Bool { level == 1 || level == 3 || level == 4 }

    /// The name of kernel set `level`, for benchmarks and logs.
    static func name(_ level: Int32) -> String {
        switch level {
        case 1: "avx2"
        case 2: "neon"
        case 3: "avx512bw"
        case 4: "avx512vnni"
        default: "portable"
        }
    }

    /// One source row (RGBA8, `width` pixels) filtered horizontally into `output` as
    /// ``OpaqueRows`` values, as the portable ``FixedPointKernel`` pass makes them. Returns
    /// whether the row is opaque over the table's span (`firstInput..<endInput`), found in the
    /// same walk over its pixels; when it is not, `output` is of no use.
    /// `scratch`: ``scratchCount(width:)`` values (the kernels copy the row's last pixels there,
    /// or widen the row there). `next`: the row filtered next, if any (level 4 prefetches it).
    @inline(__always)
    static func horizontal(
        level: Int32, _ row: UnsafePointer<UInt8>, width: Int, table: KernelTable, kernel: FixedPointKernel,
        scratch: UnsafeMutablePointer<Int16>, into output: UnsafeMutablePointer<SIMD4<Int16>>, next: UnsafePointer<UInt8>? = nil
    ) -> Bool {
        let shift = Int32(kernel.precision - OpaqueRows.fraction)
        // Level 4 reads the packed weights (a quarter of the bytes), the others the spread ones.
        let packed = level == 4
        return table.starts.withUnsafeBufferPointer { starts in
            table.counts.withUnsafeBufferPointer { counts in
                (packed ? kernel.packedTaps : kernel.taps).withUnsafeBufferPointer { taps in
                    UnsafeMutableRawPointer(output).withMemoryRebound(to: Int16.self, capacity: starts.count * 4) { out in
                        let opaque =
                            packed
                            ? kernel.plan.withUnsafeBufferPointer { plan in
                                wi_resample_horizontal_packed(
                                    level, row, width, starts.count, starts.baseAddress, counts.baseAddress, plan.baseAddress,
                                    taps.baseAddress, kernel.packedBlockStride, shift, Int32(128 << OpaqueRows.fraction), scratch,
                                    out, next)
                            }
                            : wi_resample_horizontal(
                                level, row, width, starts.count, starts.baseAddress, counts.baseAddress, taps.baseAddress,
                                kernel.blockStride, shift, Int32(128 << OpaqueRows.fraction), scratch, out)
                        return opaque != 0
                    }
                }
            }
        }
    }

    /// Two source rows filtered as ``horizontal(level:_:width:table:kernel:scratch:into:next:)``
    /// filters one, `row0` into `output0` and `row1` into `output1`, at level 4 only (each
    /// weight load serves both). Returns whether both are opaque over the table's span; when
    /// either is not, neither output is of use. `next`: the row filtered after `row1`, if any.
    @inline(__always)
    static func horizontalPair(
        level: Int32, _ row0: UnsafePointer<UInt8>, _ row1: UnsafePointer<UInt8>, width: Int, table: KernelTable,
        kernel: FixedPointKernel, scratch: UnsafeMutablePointer<Int16>, into output0: UnsafeMutablePointer<SIMD4<Int16>>,
        _ output1: UnsafeMutablePointer<SIMD4<Int16>>, next: UnsafePointer<UInt8>?
    ) -> Bool {
        let shift = Int32(kernel.precision - OpaqueRows.fraction)
        let outputs = table.starts.count
        return table.starts.withUnsafeBufferPointer { starts in
            table.counts.withUnsafeBufferPointer { counts in
                kernel.packedTaps.withUnsafeBufferPointer { taps in
                    kernel.plan.withUnsafeBufferPointer { plan in
                        UnsafeMutableRawPointer(output0).withMemoryRebound(to: Int16.self, capacity: outputs * 4) { out0 in
                            UnsafeMutableRawPointer(output1).withMemoryRebound(to: Int16.self, capacity: outputs * 4) { out1 in
                                wi_resample_horizontal_packed2(
                                    level, row0, row1, width, outputs, starts.baseAddress, counts.baseAddress, plan.baseAddress,
                                    taps.baseAddress, kernel.packedBlockStride, shift, Int32(128 << OpaqueRows.fraction), scratch,
                                    out0, out1, next) != 0
                            }
                        }
                    }
                }
            }
        }
    }

    /// The scratch ``horizontal(level:_:width:table:kernel:scratch:into:next:)`` and
    /// ``horizontalPair(level:_:_:width:table:kernel:scratch:into:_:next:)`` need for rows of
    /// `width` pixels.
    static func scratchCount(width: Int) -> Int { (4 * width + 64) * 4 }

    /// Output row `y` of ``OpaqueRows`` from `count` filtered rows (`rows[count]` readable too,
    /// as there), `width` pixels, into RGBA8 `bytes`.
    @inline(__always)
    static func vertical(
        level: Int32, _ rows: UnsafePointer<UnsafePointer<Int16>?>, count: Int, weights: OpaqueRows, output y: Int, width: Int,
        into bytes: UnsafeMutablePointer<UInt8>
    ) {
        let shift = Int32(weights.precision + OpaqueRows.fraction)
        weights.weights.withUnsafeBufferPointer { all in
            UnsafeRawPointer(all.baseAddress! + y * weights.pairStride).withMemoryRebound(
                to: Int16.self, capacity: weights.pairStride * 8
            ) { w in
                wi_resample_vertical(level, rows, w, (count + 1) / 2, width, shift, bytes)
            }
        }
    }
}
