import XDocSource

/// Property lists through XDocSource's coder, with Netatalk's trailing NUL tolerated.
enum PlistDecoding {
    /// The root value: as it is, or without one trailing NUL when that fails.
    static func decode(_ bytes: [UInt8], maximumSize: Int) -> Result<PropertyListValue, PropertyListError> {
        // An attribute-sized value takes the validator's one walk; only a larger one (an
        // archive's WhereFroms) goes through libplist with proportionally larger bounds.
        let size = bytes.count <= PropertyList.maximumSize ? PropertyList.maximumSize : maximumSize
        do {
            return .success(try PropertyList.decode(bytes, maximumSize: size))
        } catch {
            if bytes.last == 0, let value = try? PropertyList.decode(Array(bytes.dropLast()), maximumSize: size) {
                return .success(value)
            }
            return .failure(error)
        }
    }

    /// A property-list date (seconds since 2001, a double) as a time, to the microsecond (as
    /// XDocSource shows plist dates); nil for non-finite or far-out values.
    static func time(_ secondsSince2001: Double) -> ProvenanceTime? {
        guard let micros = PropertyListDate.microseconds(secondsSince2001) else { return nil }
        let whole = micros >= 0 ? micros / 1_000_000 : -((-micros + 999_999) / 1_000_000)
        let fraction = micros - whole * 1_000_000
        return ProvenanceTime(seconds: whole + PropertyListDate.epochOffset, nanoseconds: Int32(fraction * 1000))
    }
}
