/// A 3×3 matrix of doubles, row-major, for building colour transforms.
struct Matrix3: Equatable {
    var m: [Double]  // 9 entries, row-major

    init(rows: [Double]) {
        precondition(rows.count == 9)
        m = rows
    }

    /// The matrix whose columns are `columns` (three vectors of three).
    init(columns: [[Double]]) {
        m = (0..<9).map { columns[$0 % 3][$0 / 3] }
    }

    subscript(row: Int, column: Int) -> Double { m[row * 3 + column] }

    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: (0..<9).map { i in
            let r = i / 3, c = i % 3
            return a[r, 0] * b[0, c] + a[r, 1] * b[1, c] + a[r, 2] * b[2, c]
        })
    }

    var determinant: Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The inverse, `nil` when (nearly) singular.
    var inverse: Matrix3? {
        let d = determinant
        guard abs(d) > 1e-12 else { return nil }
        let c: [Double] = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        return Matrix3(rows: c.map { $0 / d })
    }

    /// Whether every entry is within `tolerance` of `other`'s.
    func isClose(to other: Matrix3, tolerance: Double) -> Bool {
        zip(m, other.m).allSatisfy { abs($0 - $1) <= tolerance }
    }
}
