// Mask and encode stages, timed in process (filled in once the pixel API is merged).
import IconMask

func stageTimings(bench: Bench, images: [RGBAImage], sizes: [Int], perFile: (Double) -> String, sink: inout Int) {}
