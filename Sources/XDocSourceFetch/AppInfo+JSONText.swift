internal import XDSSystem

extension AppInfo {
    /// The list as appInfo.json text (SPEC §3), the form ``init(json:)`` reads back:
    ///
    /// ```json
    /// {"icons": [
    ///   {"width": 29, "height": 29, "src": "img/icon-29.png"},
    ///   {"width": 58, "height": 58, "src": "img/icon-58.png"}
    /// ]}
    /// ```
    ///
    /// One entry per line, in the order of ``icons``, ending with a newline. `src` is written
    /// as it is (JSON-escaped): a relative reference such as `img/icon-58.png` is resolved by
    /// readers against the URL the file is served from.
    public var jsonText: String {
        var lines: [String] = []
        lines.reserveCapacity(icons.count)
        for icon in icons {
            lines.append("  {\"width\": \(icon.width), \"height\": \(icon.height), \"src\": \(JSONString.literal(icon.src))}")
        }
        if lines.isEmpty { return "{\"icons\": []}\n" }
        return "{\"icons\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }
}
