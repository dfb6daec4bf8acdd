#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's environment as a dictionary, read from `environ` (no Foundation needed).
package enum ProcessEnvironment {
    /// Every variable, the first definition of a name winning (as getenv does).
    package static func current() -> [String: String] {
        var result: [String: String] = [:]
        #if canImport(Darwin)
        guard let pointer = _NSGetEnviron()?.pointee else { return result }
        #else
        guard let pointer = environ as UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? else { return result }
        #endif
        var index = 0
        while let entry = pointer[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            index += 1
        }
        return result
    }
}
