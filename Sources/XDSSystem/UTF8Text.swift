extension String {
    /// `bytes` as text when they are well-formed UTF-8, nil otherwise (a lone continuation byte,
    /// an overlong form, a surrogate, a cut sequence); a NUL is text like any other byte.
    ///
    /// The one UTF-8 check of the package: `String(validating:as:)` says the same but needs
    /// macOS 15, above the package's line (macOS 13). Decoding repairs each ill-formed sequence
    /// with U+FFFD, which changes the bytes, so text whose UTF-8 is the input was well-formed.
    package init?<Bytes: Collection<UInt8>>(validatingUTF8Bytes bytes: Bytes) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else { return nil }
        self = text
    }
}
