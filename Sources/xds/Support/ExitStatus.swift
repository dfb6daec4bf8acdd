import ArgumentParser
import IconMask
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The exit statuses of SPEC §5 (BSD sysexits). With several files the highest wins.
enum ExitStatus: Int32, Comparable {
    /// Done; every file asked about had what was asked for.
    case success = 0
    /// Nothing wrong, but something asked about is absent.
    case absent = 1
    /// Bad option or value.
    case usage = 64
    /// Malformed plist, PNG, JSON, Info.plist, AppleDouble.
    case dataError = 65
    /// An input file or folder does not exist.
    case noInput = 66
    /// A network fetch failed, or offline with nothing cached.
    case unavailable = 69
    /// The filesystem refused: no xattr support, permission denied, disk full.
    case ioError = 74

    static func < (a: ExitStatus, b: ExitStatus) -> Bool { a.rawValue < b.rawValue }

    /// The status for a PNG that could not be decoded or encoded: 65 for the image's fault,
    /// 74 when zlib or libdeflate cannot be loaded (SPEC §5).
    init(png error: any Error) {
        self = (error as? PNGError)?.kind == .libraryUnavailable ? .ioError : .dataError
    }

    /// The `ExitCode` to throw from `run()` once messages are printed.
    var exitCode: ExitCode { ExitCode(rawValue) }

    /// Ends the process with this status (standard output is flushed), for paths that do not
    /// go through ArgumentParser.
    func exitProcess() -> Never {
        Self.exitProcess(code: rawValue)
    }

    /// Ends the process with `code`, which need not be one of the statuses above (ArgumentParser's
    /// codes for help and usage are 0 and 64).
    static func exitProcess(code: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(code)
        #else
        Darwin.exit(code)
        #endif
    }
}
