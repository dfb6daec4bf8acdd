/// One reduced image of the PNG data: the whole image when not interlaced, else one of
/// the seven Adam7 passes (PNG spec §8.2).
struct Pass {
    /// First column and row of the full image that this pass covers.
    let x0: Int, y0: Int
    /// Column and row step between the pixels of this pass.
    let dx: Int, dy: Int
    /// Size of the reduced image (either may be 0: the pass then has no data at all).
    let width: Int, height: Int

    /// The passes of an image of the given header, empty ones included.
    static func passes(_ header: PNGHeader) -> [Pass] {
        let w = header.width, h = header.height
        guard header.interlaced else { return [Pass(x0: 0, y0: 0, dx: 1, dy: 1, width: w, height: h)] }
        let table: [(Int, Int, Int, Int)] = [
            (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
        ]
        return table.map { x0, y0, dx, dy in
            Pass(x0: x0, y0: y0, dx: dx, dy: dy,
                 width: w > x0 ? (w - x0 + dx - 1) / dx : 0,
                 height: h > y0 ? (h - y0 + dy - 1) / dy : 0)
        }
    }

    /// Bytes of filtered data this pass occupies: a filter byte plus the row, per row.
    func filteredSize(_ header: PNGHeader) -> Int {
        width == 0 || height == 0 ? 0 : height * (1 + header.rowBytes(width))
    }
}
