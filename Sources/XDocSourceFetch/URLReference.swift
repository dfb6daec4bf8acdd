// The parser lives in XDSSystem, the lowest module, beside the redaction rule that shares its
// scanning of schemes and authorities, so that XDocSource and XDSProvenance read URLs with it
// without depending on this module; this name keeps it where library users have always found
// it, `import XDocSourceFetch`.
public import XDSSystem

/// URI references (RFC 3986), the package's one URL parser (`XDSSystem.URLReference`): what
/// the fetcher, the policy and the transport read every URL with.
///
/// `parse(_:)` gives a reference's `Components` (scheme lower-cased, the rest as written) or
/// nil when it is not a valid reference: a space, a control character, a character RFC 3986
/// never allows, a `%` without two hexadecimal digits, a bad scheme, port or IP literal, a
/// colon in a relative reference's first segment. A non-ASCII character is percent-encoded as
/// UTF-8 in the path, query and fragment, and refused in the scheme and authority (no IDNA).
/// `resolve(_:against:)` resolves an icon's `src` against the URL of its appInfo.json (§5.2,
/// strict form); `resolveLocal(_:inFolder:)` resolves it against a local folder;
/// `scheme(of:)` reads only the scheme; `removingFragment(_:)` drops the fragment before a
/// request.
///
/// ```swift
/// URLReference.resolve("img/icon-58.png", against: "https://example.com/app/appInfo.json")
/// // "https://example.com/app/img/icon-58.png"
/// URLReference.parse("https://[::1]:8443/a")?.portOrDefault  // 8443
/// ```
public typealias URLReference = XDSSystem.URLReference
