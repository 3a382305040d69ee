/// A plain-text table with aligned columns. Widths are measured on the text before styling, so
/// colour codes never break the alignment.
struct TextTable {
    /// One cell: its text and an optional style applied when colours are on.
    struct Cell: ExpressibleByStringLiteral {
        var text: String
        var style: Console.Style?

        init(_ text: String, _ style: Console.Style? = nil) {
            self.text = text
            self.style = style
        }

        init(stringLiteral value: String) {
            self.init(value)
        }
    }

    var headers: [String]
    /// Indices of the columns aligned right (numbers).
    var rightAligned: Set<Int> = []
    private(set) var rows: [[Cell]] = []

    init(headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    mutating func append(_ row: [Cell]) {
        rows.append(row)
    }

    /// The table as lines: a bold header row, then one line per row; columns separated by two
    /// spaces, trailing spaces trimmed.
    func render(colors: Bool = Console.colorsStdout) -> [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.text.count)
            }
        }
        func line(_ cells: [Cell]) -> String {
            var parts: [String] = []
            for (index, cell) in cells.enumerated() where index < widths.count {
                let padding = String(repeating: " ", count: widths[index] - cell.text.count)
                let text = Console.styled(cell.text, cell.style, enabled: colors)
                let isLast = index == cells.count - 1
                if rightAligned.contains(index) {
                    parts.append(padding + text)
                } else {
                    parts.append(isLast ? text : text + padding)
                }
            }
            return parts.joined(separator: "  ")
        }
        return [line(headers.map { Cell($0, .bold) })] + rows.map(line)
    }
}
