// The stages after decode, timed one by one in process over the decoded corpus, so the
// whole-process figures can be split: resample, shape mask and stroke, unpremultiply, encode.
import IconMask

/// Times resample, mask, unpremultiply and encode at each size and prints one row each.
func stageTimings(bench: Bench, images: [RGBAImage], sizes: [Int], perFile: (Double) -> String,
                  sink: inout Int) {
    var local = 0
    for size in sizes {
        let options = MaskOptions(sizePoints: size, scale: 1, shape: .continuous, stroke: true)
        let circular = MaskOptions(sizePoints: size, scale: 1, shape: .circular, stroke: true)
        let resampled = images.map { Resampler.resampleToFill($0, width: size, height: size) }
        var masked = resampled
        for i in masked.indices { IconMasker.apply(options, to: &masked[i]) }
        let outputs = masked.map { $0.rgbaImage() }

        let tResample = bench.timeRounds { i in
            local &+= Resampler.resampleToFill(images[i], width: size, height: size).pixels.count
        }
        let tArea = bench.timeRounds { i in
            local &+= Resampler.resampleToFill(images[i], width: size, height: size, filter: .area).pixels.count
        }
        let tMask = bench.timeRounds { i in
            var copy = resampled[i]
            IconMasker.apply(options, to: &copy)
            local &+= copy.pixels.count
        }
        let tMaskCircular = bench.timeRounds { i in
            var copy = resampled[i]
            IconMasker.apply(circular, to: &copy)
            local &+= copy.pixels.count
        }
        let tStraight = bench.timeRounds { i in local &+= masked[i].rgbaImage().pixels.count }
        let tEncode = bench.timeRounds { i in local &+= (try? PNGEncoder.encode(outputs[i]))?.count ?? 0 }
        let tWhole = bench.timeRounds { i in
            local &+= ((try? IconMasker.mask(images[i], options: options))?.pixels.count ?? 0)
        }
        for (name, t) in [("resample 1024→\(size) (lanczos3)", tResample),
                          ("  (area filter instead)", tArea),
                          ("shape+stroke \(size) continuous", tMask),
                          ("shape+stroke \(size) circular", tMaskCircular),
                          ("unpremultiply \(size)", tStraight),
                          ("encode \(size)", tEncode),
                          ("IconMasker.mask \(size) (all but I/O)", tWhole)] {
            print("\(pad(name, 34)) \(pad(perFile(t), 9)) \(pad(fmt(t * 1000), 10))")
        }
    }
    sink &+= local
}
