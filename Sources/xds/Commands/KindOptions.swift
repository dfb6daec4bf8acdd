import ArgumentParser
import XDSProvenance
import XDSSystem

/// `--only KIND,...` and `--keep KIND,...` of `xds strip`: which kinds of mark go (SPEC §6).
/// Kinds as comma lists or repeated options; an unknown kind, or one both kept and only, is a
/// usage error (64).
struct KindOptions: ParsableArguments {
    @Option(name: .customLong("only"), parsing: .singleValue,
            help: ArgumentHelp("Strip only these kinds (comma list, or repeat the option).", valueName: "KIND,..."),
            completion: .list(ProvenanceKind.allCases.map(\.rawValue)))
    var only: [String] = []

    @Option(name: .customLong("keep"), parsing: .singleValue,
            help: ArgumentHelp("Keep these kinds (comma list, or repeat the option).", valueName: "KIND,..."),
            completion: .list(ProvenanceKind.allCases.map(\.rawValue)))
    var keep: [String] = []

    @Flag(name: .customLong("mac-metadata"),
          help: "Also delete Mac metadata (._ files, .DS_Store, __MACOSX, Apple attributes): it deletes what Macs use.")
    var macMetadata = false

    func validate() throws {
        if macMetadata {
            _ = try selection
        } else {
            _ = try Self.kinds(only: only, keep: keep)
        }
    }

    /// With `--mac-metadata`: what goes, `--only`/`--keep` taking kinds and Mac metadata words.
    var selection: MacMetadataSelection {
        get throws {
            do throws(MacMetadataSelection.WordError) {
                return try MacMetadataSelection(only: only, keep: keep)
            } catch {
                let option = (try? MacMetadataSelection.words(only)) == nil ? "--only" : "--keep"
                if case .both = error { throw ValidationError("\(error).") }
                throw ValidationError("\(option): \(error).")
            }
        }
    }

    /// The kinds to strip: every kind, or those of `--only`, minus those of `--keep`.
    var kinds: Swift.Set<ProvenanceKind> {
        // validate() has run on every route that gets here.
        (try? Self.kinds(only: only, keep: keep)) ?? []
    }

    /// The kinds `only` (every kind when empty) minus `keep`; throws for an unknown kind or
    /// one named in both.
    static func kinds(only: [String], keep: [String]) throws -> Swift.Set<ProvenanceKind> {
        let onlyKinds = try parse(only, option: "--only")
        let keptKinds = try parse(keep, option: "--keep")
        if let both = ProvenanceKind.allCases.first(where: { onlyKinds.contains($0) && keptKinds.contains($0) }) {
            throw ValidationError("\(both) is given to both --only and --keep.")
        }
        let chosen = onlyKinds.isEmpty ? Swift.Set(ProvenanceKind.allCases) : onlyKinds
        return chosen.subtracting(keptKinds)
    }

    /// The kinds named in `values` (each a comma list).
    private static func parse(_ values: [String], option: String) throws -> Swift.Set<ProvenanceKind> {
        var kinds = Swift.Set<ProvenanceKind>()
        for value in values {
            for name in value.split(separator: ",", omittingEmptySubsequences: false) {
                guard let kind = ProvenanceKind(name: name) else {
                    let shown = name.isEmpty ? "an empty kind" : "unknown kind \(VisibleText.quoted(name))"
                    throw ValidationError("\(option): \(shown); the kinds are \(kindList).")
                }
                kinds.insert(kind)
            }
        }
        return kinds
    }

    /// Every kind's name, comma-separated (for messages and help).
    static var kindList: String { ProvenanceKind.allCases.map(\.rawValue).joined(separator: ", ") }
}
