extension String {
    /// `bytes` as text when they are well-formed UTF-8, nil otherwise (a lone continuation byte,
    /// an overlong form, a surrogate, a cut sequence); a NUL is text like any other byte.
    ///
    /// The one UTF-8 check of the package: `String(validating:as:)` says the same but needs
    /// macOS 15, above the package's line (macOS 13). Decoding repairs each ill-formed sequence
    /// with U+FFFD, which changes the bytes, so text whose UTF-8 is the input was well-formed.
    ///
    /// Contiguous bytes (an array, a slice of one, a buffer) are compared as one buffer. A
    /// generic comparison called from another module ran unspecialised: 50 k instructions for
    /// a 40-byte path, and 270 k the first time for the runtime to build the types it needed
    /// (issue 35: half of `check`'s work per record, a tenth of `xds show FILE`'s start-up).
    package init?<Bytes: Collection<UInt8>>(validatingUTF8Bytes bytes: Bytes) {
        if let text = bytes.withContiguousStorageIfAvailable({ String.validatingUTF8Buffer($0) }) {
            guard let text else { return nil }
            self = text
            return
        }
        self.init(validatingUTF8Bytes: Array(bytes))
    }

    /// ``init(validatingUTF8Bytes:)`` for an array (no generic code between).
    package init?(validatingUTF8Bytes bytes: [UInt8]) {
        guard let text = bytes.withUnsafeBufferPointer({ String.validatingUTF8Buffer($0) }) else { return nil }
        self = text
    }

    /// ``init(validatingUTF8Bytes:)`` for a slice of an array.
    package init?(validatingUTF8Bytes bytes: ArraySlice<UInt8>) {
        guard let text = bytes.withUnsafeBufferPointer({ String.validatingUTF8Buffer($0) }) else { return nil }
        self = text
    }

    /// The check itself, on one buffer: decode, then compare the text's UTF-8 with the input.
    private static func validatingUTF8Buffer(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var text = String(decoding: bytes, as: UTF8.self)
        let same = text.withUTF8 { decoded in
            decoded.count == bytes.count && (bytes.isEmpty || decoded.elementsEqual(bytes))
        }
        return same ? text : nil
    }
}
