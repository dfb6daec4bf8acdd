import Testing
@testable import IconMask

/// IconRenditions gives IconMasker's unmasked pixels at each size.
@Suite struct IconRenditionsTests {
    @Test(arguments: [[29, 58, 87, 1024], [1, 2, 160, 161, 300]])
    func eachSizeIsTheMaskWithoutAShape(_ sizes: [Int]) throws {
        let image = TestSupport.syntheticInput()  // 160×128: centre-cropped, partly transparent
        let renditions = try IconRenditions.resized(image, toPixelSizes: sizes)
        #expect(renditions.count == sizes.count)
        for (n, rendition) in zip(sizes, renditions) {
            let masked = try IconMasker.mask(image, options: MaskOptions(sizePoints: n, scale: 1, shape: .none, stroke: false))
            #expect(rendition.width == n && rendition.height == n)
            #expect(rendition == masked, "size \(n)")
        }
    }

    @Test func theImagesOwnSizeIsReturnedUnchanged() throws {
        var image = TestSupport.syntheticInput()
        image = IconMasker.mask(image, options: MaskOptions(sizePoints: 120, shape: .none, stroke: false), bandRows: 128)
        // Hidden colour under transparent pixels, which masking would clear.
        image.pixels[0..<4] = [9, 8, 7, 0]
        let renditions = try IconRenditions.resized(image, toPixelSizes: [120, 60, 120])
        #expect(renditions[0] == image && renditions[2] == image)
        #expect(renditions[1] == IconMasker.mask(image, options: MaskOptions(sizePoints: 60, shape: .none, stroke: false), bandRows: 128))
        // Same-size masking changes at least the hidden colour.
        #expect(IconMasker.mask(image, options: MaskOptions(sizePoints: 120, shape: .none, stroke: false), bandRows: 128) != image)
    }

    @Test(arguments: [0, -3, MaskOptions.maximumPixelSize + 1])
    func unusableSizesThrow(_ n: Int) {
        #expect(throws: MaskOptionsError.self) {
            _ = try IconRenditions.resized(TestSupport.syntheticInput(), toPixelSizes: [29, n])
        }
    }

    @Test func anEmptyImageGivesTransparentSizes() throws {
        let renditions = try IconRenditions.resized(RGBAImage(width: 0, height: 0, pixels: []), toPixelSizes: [3])
        #expect(renditions == [RGBAImage(width: 3, height: 3, pixels: [UInt8](repeating: 0, count: 36))])
    }
}
