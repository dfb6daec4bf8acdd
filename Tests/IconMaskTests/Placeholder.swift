import Testing
@testable import IconMask
@Test func builds() { #expect(Bool(true)) }
