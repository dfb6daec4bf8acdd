internal import XDSSystem

/// Why a property list could not be decoded or encoded.
///
/// The message is one line in words, naming the problem, for example
/// "binary plist trailer: offset table lies outside the data". It is what
/// `description` returns, so command-line tools can print it as it is; ``kind`` says which
/// rule was broken, so callers and tests can match without parsing the words.
public struct PropertyListError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The broad class of problem.
    public enum Kind: Sendable, Hashable {
        /// The bytes are empty, or neither a binary (`bplist00`) nor an XML property list.
        case notAPropertyList
        /// The value is larger than ``PropertyList/maximumSize``, or grows past the limit once converted.
        case tooLarge
        /// The binary trailer is missing or holds impossible sizes, counts or offsets.
        case trailer
        /// An entry of the binary offset table points outside the object area.
        case offsetTable
        /// A binary object is malformed: unknown or null marker, invalid size or length,
        /// bytes running past the objects, a dictionary key that is not a string.
        case object
        /// A binary object refers to an object index that does not exist.
        case reference
        /// A binary container contains itself.
        case cycle
        /// Arrays and dictionaries are nested more than ``PropertyList/maximumDepth`` levels deep.
        case tooDeep
        /// Shared binary references expand to too many values or bytes.
        case expansion
        /// Text that cannot be a string: invalid UTF-8 or UTF-16, a NUL character, a non-ASCII
        /// byte in an ASCII string, a character reference to no valid character.
        case text
        /// A dictionary holds the same key twice.
        case duplicateKey
        /// An integer is malformed or outside -2^63 … 2^64-1.
        case integer
        /// A date is malformed, impossible (month 13, February 30) or not a representable time.
        case date
        /// XML `<data>` is not valid base64.
        case base64
        /// The XML is not well formed (unterminated tag, comment or section; an element where
        /// text belongs; rejected by the XML parser).
        case xmlSyntax
        /// The XML declares entities or an internal DTD subset.
        case xmlEntity
        /// The root is not a dictionary where one is required.
        case notADictionary
        /// A value cannot be stored in a property list (e.g. a string containing NUL, a UID above 32 bits).
        case unencodable
        /// libplist failed on, or read differently, a value the validators accepted.
        case libplist
        /// Anything else.
        case other
    }

    /// The broad class of problem.
    public let kind: Kind
    /// One line in words describing the problem.
    public let message: String

    /// Creates an error of the given kind with a one-line message.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Creates an error of kind ``Kind/other`` with the given one-line message.
    public init(_ message: String) {
        self.init(.other, message)
    }

    /// The message.
    public var description: String { message }
}

extension PropertyListError {
    /// Text taken from the input, quoted for a one-line message by the project's one escaper
    /// (invisible and line-breaking characters escaped, cut after 60 characters).
    static func quoted(_ text: some StringProtocol) -> String {
        VisibleText.quoted(text)
    }
}
