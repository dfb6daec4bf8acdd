import Testing
@testable import xds
@Test func builds() { #expect(Bool(true)) }
