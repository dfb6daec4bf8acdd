//===----------------------------------------------------------------------===//
//
// This source file is part of the Swift Argument Parser open source project
//
// Copyright (c) 2025 Apple Inc. and the Swift project authors
// Licensed under Apache License v2.0 with Runtime Library Exception
//
// See https://swift.org/LICENSE.txt for license information
//
//===----------------------------------------------------------------------===//

// xds: changed (the first of the changes to swift-argument-parser 1.8.2, see README.md): no Foundation.
// The original imported FoundationEssentials for two things, an error's LocalizedError text
// and the JSON of `--experimental-dump-help`; linked statically, FoundationEssentials added
// ~5 MB to every program and ~0.1 ms to its start-up. Errors are described by
// String(describing:), and the JSON is written by the small encoder below, byte for byte as
// Foundation's JSONEncoder writes it with .prettyPrinted and .sortedKeys.

extension Error {
  func describe() -> String {
    String(describing: self)
  }
}

enum JSONEncoder {
  static func encode<T: Encodable>(_ value: T) -> String {
    let encoder = JSONTreeEncoder(storage: JSONTreeEncoder.Box(.null))
    guard (try? value.encode(to: encoder)) != nil else { return "" }
    var out = ""
    encoder.storage.write(to: &out, indent: 0)
    return out
  }
}

/// Builds a JSON tree from Encodable values; boxes let nested containers fill their parent.
private struct JSONTreeEncoder: Encoder {
  final class Box {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  enum Value {
    case null
    case literal(String)  // numbers and booleans, as written
    case string(String)
    case array([Box])
    case object([String: Box])
  }

  let storage: Box
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .object = storage.value {} else { storage.value = .object([:]) }
    return KeyedEncodingContainer(Keyed<Key>(storage: storage, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .array = storage.value {} else { storage.value = .array([]) }
    return Unkeyed(storage: storage, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    Single(storage: storage, codingPath: codingPath)
  }

  /// Encodes `value` into `box`: scalars directly, anything else through its own encode(to:).
  static func encode<T: Encodable>(_ value: T, into box: Box, codingPath: [any CodingKey]) throws {
    switch value {
    case let string as String: box.value = .string(string)
    case let bool as Bool: box.value = .literal(bool ? "true" : "false")
    case let int as Int: box.value = .literal(String(int))
    case let double as Double: box.value = .literal(double.description)
    default: try value.encode(to: JSONTreeEncoder(storage: box, codingPath: codingPath))
    }
  }

  struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: Box
    var codingPath: [any CodingKey]

    private func child(_ key: Key, _ value: Value) -> Box {
      let box = Box(value)
      if case .object(var members) = storage.value {
        storage.value = .null  // the only reference left: the insertion does not copy
        members[key.stringValue] = box
        storage.value = .object(members)
      }
      return box
    }

    mutating func encodeNil(forKey key: Key) throws { _ = child(key, .null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      try JSONTreeEncoder.encode(value, into: child(key, .null), codingPath: codingPath + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      KeyedEncodingContainer(Keyed<NestedKey>(storage: child(key, .object([:])), codingPath: codingPath + [key]))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      Unkeyed(storage: child(key, .array([])), codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder {
      JSONTreeEncoder(storage: child(Key(stringValue: "super")!, .null), codingPath: codingPath)
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
      JSONTreeEncoder(storage: child(key, .null), codingPath: codingPath + [key])
    }
  }

  struct Unkeyed: UnkeyedEncodingContainer {
    let storage: Box
    var codingPath: [any CodingKey]
    var count: Int {
      if case .array(let elements) = storage.value { return elements.count }
      return 0
    }

    private func append(_ value: Value) -> Box {
      let box = Box(value)
      if case .array(var elements) = storage.value {
        storage.value = .null  // as in Keyed.child: no copy
        elements.append(box)
        storage.value = .array(elements)
      }
      return box
    }

    mutating func encodeNil() throws { _ = append(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
      try JSONTreeEncoder.encode(value, into: append(.null), codingPath: codingPath)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
      KeyedEncodingContainer(Keyed<NestedKey>(storage: append(.object([:])), codingPath: codingPath))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      Unkeyed(storage: append(.array([])), codingPath: codingPath)
    }
    mutating func superEncoder() -> any Encoder {
      JSONTreeEncoder(storage: append(.null), codingPath: codingPath)
    }
  }

  struct Single: SingleValueEncodingContainer {
    let storage: Box
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { storage.value = .null }
    mutating func encode<T: Encodable>(_ value: T) throws {
      try JSONTreeEncoder.encode(value, into: storage, codingPath: codingPath)
    }
  }
}

extension JSONTreeEncoder.Box {
  /// Foundation's pretty printing: two spaces a level, `"key" : value`, keys sorted, an empty
  /// array or object as an opening line, an empty line and the closing line.
  func write(to out: inout String, indent: Int) {
    let inner = String(repeating: " ", count: indent + 2)
    switch value {
    case .null: out += "null"
    case .literal(let text): out += text
    case .string(let string): Self.quote(string, into: &out)
    case .array(let elements):
      out += "[\n"
      for (index, element) in elements.enumerated() {
        out += inner
        element.write(to: &out, indent: indent + 2)
        if index < elements.count - 1 { out += "," }
        out += "\n"
      }
      if elements.isEmpty { out += "\n" }
      out += String(repeating: " ", count: indent) + "]"
    case .object(let members):
      out += "{\n"
      let keys = members.keys.sorted()
      for (index, key) in keys.enumerated() {
        out += inner
        Self.quote(key, into: &out)
        out += " : "
        members[key]!.write(to: &out, indent: indent + 2)
        if index < keys.count - 1 { out += "," }
        out += "\n"
      }
      if keys.isEmpty { out += "\n" }
      out += String(repeating: " ", count: indent) + "}"
    }
  }

  /// A JSON string literal, escaped as Foundation does (including `\/`).
  private static func quote(_ string: String, into out: inout String) {
    out += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "/": out += "\\/"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}
