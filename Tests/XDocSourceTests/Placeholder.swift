import Testing
@testable import XDocSource
@Test func builds() { #expect(Bool(true)) }
