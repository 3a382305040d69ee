/// An HTTP date in the preferred IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110
/// §5.6.7), parsed without Foundation: seconds since 1970, or `nil` for anything else (the
/// obsolete RFC 850 and asctime forms included — callers treat that as "unknown").
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes at fixed positions.
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
            String(decoding: bytes[26...], as: UTF8.self) == "GMT",
            let day = number(bytes[5..<7]), let year = number(bytes[12..<16]), let hour = number(bytes[17..<19]),
            let minute = number(bytes[20..<22]), let second = number(bytes[23..<25]),
            let monthIndex = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        return daysFromCivil(year: year, month: monthIndex + 1, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard digit >= 0x30, digit <= 0x39 else { return nil }
            value = value * 10 + Int(digit - 0x30)
        }
        return value
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
