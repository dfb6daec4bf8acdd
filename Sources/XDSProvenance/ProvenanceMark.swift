import XDocSource

/// One mark of where a file came from: one kind in one store (the same kind in two stores is
/// two marks), decoded (SPEC §6).
public struct ProvenanceMark: Sendable, Equatable {
    /// The convention.
    public let kind: ProvenanceKind
    /// Where it was found.
    public let store: ProvenanceStore
    /// The attribute, stream or entry names it was read from, as found (U+F022 and all): one
    /// name for every kind but ``ProvenanceKind/xdg``, whose attributes of one store make one
    /// mark; for a ``ProvenanceStore/zoneFile`` the file's name. Lossy text for names that are
    /// not UTF-8 (for display; they are escaped when printed).
    public let names: [String]
    /// The decoded value, or ``Content/undecodable(_:)`` with the bytes and the reason.
    public let content: Content

    /// Creates a mark.
    public init(kind: ProvenanceKind, store: ProvenanceStore, names: [String], content: Content) {
        self.kind = kind
        self.store = store
        self.names = names
        self.content = content
    }

    /// ``names`` as one text (`, ` between names): the `name` of `xds where`'s output.
    public var name: String { names.count == 1 ? names[0] : names.joined(separator: ", ") }

    /// A mark's decoded value, typed by kind (no text to parse).
    public enum Content: Sendable, Equatable {
        /// ``ProvenanceKind/xDocumentSource``: the value `xds show` prints.
        case documentSource(DocumentSource)
        /// ``ProvenanceKind/quarantine``.
        case quarantine(Quarantine)
        /// ``ProvenanceKind/whereFroms``: every string of the array, in order.
        case whereFroms([String])
        /// ``ProvenanceKind/downloadedDate``: the first date of the array.
        case downloadedDate(ProvenanceTime)
        /// ``ProvenanceKind/lastUsedDate``.
        case lastUsedDate(ProvenanceTime)
        /// ``ProvenanceKind/macOSProvenance``: the bytes, shown as hex (meaningful only on the
        /// Mac that set them).
        case macOSProvenance([UInt8])
        /// ``ProvenanceKind/xdg``: the fields of every xdg attribute of one store.
        case xdg(XDGOrigin)
        /// ``ProvenanceKind/zoneIdentifier``.
        case zoneIdentifier(ZoneIdentifier)
        /// A value that does not decode: shown as hex with the reason, and `xds where` exits 65.
        case undecodable(UndecodableValue)
    }
}

/// A value that does not decode as its kind says (a quarantine whose flags are not hex, a
/// `last-used-date` that is not 16 bytes, a date list without a date, a value over its bound).
public struct UndecodableValue: Sendable, Equatable {
    /// The value's bytes, at most ``maximumKept`` of them (a value over its bound is not read whole).
    public let bytes: [UInt8]
    /// Why it does not decode, in words (no file name).
    public let reason: String
    /// Whether the value is a URL field's (an xdg `url` or `referrer` that is not UTF-8): its
    /// user information was hidden by ``ProvenanceURL/withoutCredentials(bytes:)`` before the
    /// bytes were kept, and a printer applies ``ProvenanceURL/redacted(bytes:)`` for `--redact`.
    public let isURL: Bool

    /// The most bytes of an undecodable value kept to show.
    public static let maximumKept = 256

    /// Creates one, keeping at most ``maximumKept`` bytes of `bytes`.
    public init(bytes: some Collection<UInt8>, reason: String) {
        self.bytes = Array(bytes.prefix(Self.maximumKept))
        self.reason = reason
        self.isURL = false
    }

    /// A value that holds URLs, kept so that no user information, whole or cut, is ever shown:
    /// SPEC §6's rule (``ProvenanceURL/withoutCredentials(bytes:)``) runs on all of `bytes`
    /// before at most ``maximumKept`` of them are kept. `isURL`: the value is one URL field that
    /// is not UTF-8 (an xdg `url` or `referrer`), whose printer applies `--redact`'s cut too;
    /// false for a whole WhereFroms or `Zone.Identifier` value that does not decode. `complete`:
    /// false when `bytes` are only the start of a longer value (one over its bound), in which an
    /// authority running to their end is hidden whole (its `@` may be past them).
    public init(hidingCredentialsIn bytes: some Collection<UInt8>, reason: String, isURL: Bool, complete: Bool = true) {
        let clean = complete ? ProvenanceURL.withoutCredentials(bytes: bytes) : ProvenanceURL.withoutCredentials(prefix: bytes)
        self.bytes = Array(clean.prefix(Self.maximumKept))
        self.reason = reason
        self.isURL = isURL
    }
}

/// A decoded `com.apple.quarantine` value: `FLAGS;HEXTIME;AGENT;UUID`, trailing fields optional.
public struct Quarantine: Sendable, Equatable {
    /// The flags as stored (4 hex digits, e.g. `0082`).
    public let flags: String
    /// The flags as a number.
    public let flagBits: UInt32
    /// When it was set (hex seconds since 1970 in the value), nil when the field is missing.
    public let time: ProvenanceTime?
    /// The app that set it, `\xNN` escapes undone (e.g. `Google Chrome`); nil when missing.
    public let agent: String?
    /// The event id (a UUID keying the Mac's quarantine-events database), nil when empty.
    public let eventID: String?

    /// Creates one.
    public init(flags: String, flagBits: UInt32, time: ProvenanceTime?, agent: String?, eventID: String?) {
        self.flags = flags
        self.flagBits = flagBits
        self.time = time
        self.agent = agent
        self.eventID = eventID
    }

    /// The named flag bits and their names (others are left unnamed).
    public static let flagNameTable: [(bit: UInt32, name: String)] = [
        (0x1, "download"), (0x2, "sandbox"), (0x4, "hard"), (0x40, "user-approved"),
    ]

    /// The names of the set bits that have one, in bit order (`0082` → `["sandbox"]`).
    public var flagNames: [String] {
        Self.flagNameTable.filter { flagBits & $0.bit != 0 }.map(\.name)
    }
}

/// The fields of freedesktop's origin attributes found in one store.
public struct XDGOrigin: Sendable, Equatable {
    /// `user.xdg.origin.url`.
    public var url: String?
    /// `user.xdg.referrer.url`.
    public var referrer: String?
    /// `user.xdg.origin.email.subject`.
    public var emailSubject: String?
    /// `user.xdg.origin.email.from`.
    public var emailFrom: String?
    /// `user.xdg.origin.email.sender` (KDE's name): its own field, since a file may carry both
    /// with different values (SPEC §6).
    public var emailSender: String?
    /// `user.xdg.origin.email.message-id`.
    public var emailMessageID: String?
    /// `user.xdg.publisher`.
    public var publisher: String?
    /// `user.creator`.
    public var creator: String?

    /// No fields.
    public init() {}

    /// The attributes that make the mark, each naming one field.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// ``XDGOrigin/url``.
        case url
        /// ``XDGOrigin/referrer``.
        case referrer
        /// ``XDGOrigin/emailSubject``.
        case emailSubject
        /// ``XDGOrigin/emailFrom``.
        case emailFrom
        /// ``XDGOrigin/emailSender``.
        case emailSender
        /// ``XDGOrigin/emailMessageID``.
        case emailMessageID
        /// ``XDGOrigin/publisher``.
        case publisher
        /// ``XDGOrigin/creator``.
        case creator
    }

    /// The value of `field`.
    public subscript(field: Field) -> String? {
        get {
            switch field {
            case .url: url
            case .referrer: referrer
            case .emailSubject: emailSubject
            case .emailFrom: emailFrom
            case .emailSender: emailSender
            case .emailMessageID: emailMessageID
            case .publisher: publisher
            case .creator: creator
            }
        }
        set {
            switch field {
            case .url: url = newValue
            case .referrer: referrer = newValue
            case .emailSubject: emailSubject = newValue
            case .emailFrom: emailFrom = newValue
            case .emailSender: emailSender = newValue
            case .emailMessageID: emailMessageID = newValue
            case .publisher: publisher = newValue
            case .creator: creator = newValue
            }
        }
    }
}

/// A decoded Windows `Zone.Identifier` stream.
public struct ZoneIdentifier: Sendable, Equatable {
    /// `ZoneId`, when present.
    public let zone: Int?
    /// `HostUrl`, when present.
    public let hostURL: String?
    /// `ReferrerUrl`, when present.
    public let referrerURL: String?

    /// Creates one.
    public init(zone: Int?, hostURL: String?, referrerURL: String?) {
        self.zone = zone
        self.hostURL = hostURL
        self.referrerURL = referrerURL
    }

    /// The zone's name (0 `local`, 1 `intranet`, 2 `trusted`, 3 `internet`, 4 `restricted`), nil
    /// for other numbers or none.
    public var zoneName: String? {
        guard let zone, zone >= 0, zone < Self.zoneNames.count else { return nil }
        return Self.zoneNames[zone]
    }

    /// The names of zones 0 to 4 (Windows' URLZONE).
    public static let zoneNames = ["local", "intranet", "trusted", "internet", "restricted"]
}
