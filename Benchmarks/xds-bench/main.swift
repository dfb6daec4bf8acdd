// In-process benchmarks for IconMask: decode throughput over a folder of PNGs, raw inflate
// alone (to split decode into inflate vs. the rest), and the mask and encode stages.
//
//     xds-bench [--corpus DIR] [--rounds N] [--sizes 58,180]
//
// Build in release (`swift build -c release --product xds-bench`); Benchmarks/run.sh runs it.
// Every figure is the median over rounds; one round is one pass over every file.
import CDeflate
@_spi(Benchmark) import IconMask

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Small helpers (no Foundation, to keep the harness as lean as the tool)

func fail(_ message: String) -> Never {
    let line = "xds-bench: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    if s.isEmpty { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func readFile(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    if fd < 0 { fail("\(path): cannot open") }
    defer { close(fd) }
    var st = stat()
    if fstat(fd, &st) != 0 { fail("\(path): cannot stat") }
    let size = Int(st.st_size)
    return [UInt8](unsafeUninitializedCapacity: size) { buf, count in
        var done = 0
        while done < size {
            let n = read(fd, buf.baseAddress! + done, size - done)
            if n <= 0 { break }
            done += n
        }
        count = done
    }
}

func listPNGs(_ dir: String) -> [String] {
    guard let d = opendir(dir) else { fail("\(dir): cannot open folder") }
    defer { closedir(d) }
    var names: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name.hasSuffix(".png") { names.append(dir + "/" + name) }
    }
    return names.sorted()
}

func fmt(_ x: Double, _ digits: Int = 1) -> String {
    if x.isNaN { return "-" }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let r = (x * p).rounded() / p
    var s = "\(r)"
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
    }
    return s
}

func pad(_ s: String, _ n: Int) -> String {
    s.count >= n ? s : s + String(repeating: " ", count: n - s.count)
}

// MARK: - Raw inflate of a PNG's IDAT stream (what the decoder's inflate step costs alone)

/// Concatenated IDAT payload and an upper bound on its inflated size, or nil if not a plain PNG.
func idatStream(_ png: [UInt8]) -> (data: [UInt8], bound: Int, raw: Bool)? {
    guard png.count > 33 else { return nil }
    func be32(_ i: Int) -> Int {
        Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
    }
    var pos = 8, width = 0, height = 0, bitsPerPixel = 0, cgbi = false
    var data: [UInt8] = []
    while pos + 12 <= png.count {
        let len = be32(pos)
        let type = String(decoding: png[pos + 4..<pos + 8], as: UTF8.self)
        let body = pos + 8
        guard body + len + 4 <= png.count else { return nil }
        switch type {
        case "CgBI": cgbi = true
        case "IHDR":
            width = be32(body); height = be32(body + 4)
            let depth = Int(png[body + 8])
            let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(png[body + 9])] ?? 4
            bitsPerPixel = depth * channels
        case "IDAT": data += png[body..<body + len]
        case "IEND": pos = png.count
        default: break
        }
        pos = body + len + 4
    }
    guard width > 0, height > 0 else { return nil }
    // Adam7 adds at most one filter byte per pass row and some rounding: +8 rows is ample.
    let rowBytes = 1 + (width * bitsPerPixel + 7) / 8
    return (data, (height + 8) * (rowBytes + 8), cgbi)
}

// MARK: - Main

func arg<T>(_ value: T?, _ message: String) -> T {
    guard let value else { fail(message) }
    return value
}

/// The loaded corpus and the round count; every timing is a median over rounds.
struct Bench {
    let paths: [String]
    let files: [[UInt8]]
    let rounds: Int

    /// Times `body` over every file once per round; returns the median round time in seconds.
    func timeRounds(_ body: (Int) -> Void) -> Double {
        var times: [Double] = []
        for _ in 0..<rounds {
            let t0 = now()
            for i in files.indices { body(i) }
            times.append(now() - t0)
        }
        return median(times)
    }
}

func main() {
    var corpus = ".build/bench/corpus/icons"  // Benchmarks/make_corpus.sh; --corpus DIR for another
    var rounds = 7
    var sizes = [58, 180]
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        switch a {
        case "--corpus": corpus = arg(args.popFirst(), "--corpus needs a folder")
        case "--rounds": rounds = arg(Int(args.popFirst() ?? ""), "--rounds needs a number")
        case "--sizes": sizes = (args.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
        case "-h", "--help":
            print("usage: xds-bench [--corpus DIR] [--rounds N] [--sizes 58,180]")
            exit(0)
        default: fail("unknown argument \(a)")
        }
    }

    let paths = listPNGs(corpus)
    if paths.isEmpty { fail("\(corpus): no .png files") }
    let files = paths.map(readFile)
    let bench = Bench(paths: paths, files: files, rounds: rounds)
    let fileBytes = files.reduce(0) { $0 + $1.count }

    // Decode once up front: checks every file decodes and gives the pixel counts.
    var images: [RGBAImage] = []
    for (path, bytes) in zip(paths, files) {
        do { images.append(try PNGDecoder.decode(bytes)) } catch { fail("\(path): \(error)") }
    }
    let pixelBytes = images.reduce(0) { $0 + $1.width * $1.height * 4 }
    let mb = Double(pixelBytes) / 1e6

    print("xds-bench: \(paths.count) files in \(corpus), \(fmt(Double(fileBytes) / 1e6, 2)) MB of PNG, "
          + "\(fmt(mb, 1)) MB of RGBA8 pixels; median of \(rounds) rounds")

    var sink = 0  // keeps results alive so the optimiser cannot drop the work

    let tDecode = bench.timeRounds { i in
        sink &+= (try? PNGDecoder.decode(files[i]))?.pixels.count ?? 0
    }

    // The same decode with zlib's streaming inflate instead (the choice IconMask did not make).
    let tDecodeZlib = bench.timeRounds { i in
        sink &+= (try? PNGDecoder.decode(files[i], inflater: .zlib))?.pixels.count ?? 0
    }

    // Inflate alone with libdeflate (zlib stream; raw deflate for CgBI).
    let streams = files.map(idatStream)
    guard let d = libdeflate_alloc_decompressor() else { fail("libdeflate_alloc_decompressor failed") }
    defer { libdeflate_free_decompressor(d) }
    var out = [UInt8](repeating: 0, count: streams.map { $0?.bound ?? 0 }.max() ?? 0)
    let tInflate = bench.timeRounds { i in
        guard let s = streams[i] else { return }
        var got = 0
        let r = s.data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                s.raw
                    ? libdeflate_deflate_decompress(d, src.baseAddress, src.count, dst.baseAddress, s.bound, &got)
                    : libdeflate_zlib_decompress(d, src.baseAddress, src.count, dst.baseAddress, s.bound, &got)
            }
        }
        if r != LIBDEFLATE_SUCCESS { fail("\(paths[i]): libdeflate result \(r.rawValue)") }
        sink &+= got
    }

    let perFile = { (t: Double) in fmt(t * 1000 / Double(files.count), 2) }
    print("")
    print("stage (in process)                 ms/icon   total ms   MB/s of RGBA8 pixels")
    print("\(pad("decode (whole, libdeflate)", 34)) \(pad(perFile(tDecode), 9)) \(pad(fmt(tDecode * 1000), 10)) \(fmt(mb / tDecode))")
    print("\(pad("decode (whole) with zlib instead", 34)) \(pad(perFile(tDecodeZlib), 9)) "
          + "\(pad(fmt(tDecodeZlib * 1000), 10)) \(fmt(mb / tDecodeZlib))")
    print("\(pad("  of which inflate (libdeflate)", 34)) \(pad(perFile(tInflate), 9)) "
          + "\(pad(fmt(tInflate * 1000), 10)) \(fmt(mb / tInflate))")
    print("\(pad("  rest (chunks, unfilter, convert)", 34)) \(pad(perFile(tDecode - tInflate), 9)) "
          + "\(pad(fmt((tDecode - tInflate) * 1000), 10))")
    stageTimings(bench: bench, images: images, sizes: sizes, perFile: perFile, sink: &sink)
    print("")
    print("DECODE_MBPS=\(fmt(mb / tDecode))")
    print("DECODE_ZLIB_MBPS=\(fmt(mb / tDecodeZlib))")
    if sink == 42 { print("") }
}

main()
