//===----------------------------------------------------------------------===//
//
// This source file is part of the Swift Argument Parser open source project
//
// Copyright (c) 2021 Apple Inc. and the Swift project authors
// Licensed under Apache License v2.0 with Runtime Library Exception
//
// See https://swift.org/LICENSE.txt for license information
//
//===----------------------------------------------------------------------===//

// Escaping rules
// https://mandoc.bsd.lv/mdoc/intro/escaping.html
extension String {
  func escapedMacroArgument() -> String {
    var escaped = ""
    var containsBlankCharacter = false

    // xds: a character outside ASCII is written as its roff escape (`\[u00D7]`), not dropped.
    for character in self {
      switch character {
      case _ where !character.isASCII:
        escaped += character.roffEscaped

      case " ":
        escaped.append(character)
        containsBlankCharacter = true

      // backslashes:
      // To output a backslash, use the escape sequence `\e`. Never use the escape sequence `\\` in any context.
      case #"\"#:
        escaped += #"\e"#

      // double quotes in macro arguments:
      // If a macro argument needs to contain a double quote character, write it as “\(dq”. No escaping is needed on text input lines.
      case "\"":
        escaped += #"\(dq"#

      default:
        // Custom addition:
        // newlines in macro arguments:
        // If a macro argument contains a newline character, replace it with a blank character.
        if character.isNewline {
          escaped.append(" ")
          containsBlankCharacter = true
        } else {
          escaped.append(character)
        }
      }
    }

    // FIXME:
    // macro names as macro arguments:
    // If the name of another mdoc(7) macro occurs as an argument on an mdoc(7) macro line, the former macro is called, and any remaining arguments are passed to it. To prevent this call and instead render the name of the former macro literally, prepend the name with a zero-width space (‘\&’). See the MACRO SYNTAX section of the mdoc(7) manual for details.

    // blanks in macro arguments
    // If a macro argument needs to contain a blank character, enclose the whole argument in double quotes. For example, this often occurs with Fa macros. See the MACRO SYNTAX in the roff(7) manual for details.
    if escaped.isEmpty || containsBlankCharacter {
      return "\"\(escaped)\""
    }

    return escaped
  }

  // xds: rewritten (see README.md).
  /// The text as mdoc text lines. Each line of the text is escaped on its own: a line
  /// that begins with a dot or an apostrophe would be read as a request, and one that begins
  /// with a blank keeps it (a line break, as in the help's indented examples). A blank line is
  /// a paragraph break, `.Pp`: an empty input line is an error in mdoc (groff prints "mdoc
  /// warning: Empty input line" for each). Blank lines at either end are dropped, as is
  /// whitespace at the end of a line.
  func escapedTextLine() -> String {
    var lines: [String] = []
    var paragraphBreak = false
    for line in self.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = Substring(line)
      while let last = line.last, last.isWhitespace { line.removeLast() }
      if line.isEmpty {
        paragraphBreak = !lines.isEmpty
        continue
      }
      if paragraphBreak {
        lines.append(".Pp")
        paragraphBreak = false
      }
      lines.append(String(line).escapedSingleTextLine().oneSentencePerLine())
    }
    return lines.joined(separator: "\n")
  }

  /// An escaped text line with each sentence on a line of its own, as mdoc wants ("new
  /// sentence, new line": only a line's end is taken as a sentence's end). A period, question
  /// or exclamation mark (and closing brackets or quotes after it) followed by a blank and a
  /// capital letter ends a sentence: the line is broken there. Followed by anything else (an
  /// abbreviation, "e.g. com.example"), it is marked as no sentence end with `\&`.
  private func oneSentencePerLine() -> String {
    let characters = Array(self)
    var result = ""
    var i = 0
    while i < characters.count {
      let character = characters[i]
      result.append(character)
      i += 1
      guard ".?!".contains(character), i > 1 else { continue }
      var end = i
      while end < characters.count, ")]\"'".contains(characters[end]) { end += 1 }
      guard end < characters.count, characters[end] == " " else { continue }
      result.append(contentsOf: characters[i..<end])
      var next = end
      while next < characters.count, characters[next] == " " { next += 1 }
      if next < characters.count, characters[next].isASCII, characters[next].isUppercase {
        result.append("\n")
        i = next
      } else {
        result += #"\&"#
        i = end
      }
    }
    return result
  }

  /// One line of text, with no newline in it.
  private func escapedSingleTextLine() -> String {
    var escaped = ""
    var atBeginning = true

    for character in self {
      switch (character, atBeginning) {

      // xds: a character outside ASCII is written as its roff escape, not dropped.
      case _ where !character.isASCII:
        if atBeginning, character.roffEscaped.first == "." { escaped += #"\&"# }
        escaped += character.roffEscaped
        atBeginning = false

      // backslashes:
      // To output a backslash, use the escape sequence `\e`. Never use the escape sequence `\\` in any context.
      case (#"\"#, _):
        escaped += #"\e"#
        atBeginning = false

      // dots and apostrophes at the beginning of text lines:
      // If a text input line needs to begin with a dot (`.`) or apostrophe (`'`), prepend a zero-width space (`\&`) to prevent the line from being mistaken for a macro line. Never use the escape sequence `\.` in any context.
      case (".", true), ("'", true):
        escaped += #"\&"#
        escaped.append(character)
        atBeginning = false

      default:
        escaped.append(character)
        atBeginning = false
      }
    }

    return escaped
  }
}

extension Character {
  /// The character as roff escapes, one `\[uXXXX]` per Unicode scalar (groff and mandoc
  /// both read them, whatever the page's encoding). An ellipsis is written "...", as
  /// ArgumentParser writes one itself: groff has no ASCII form of `\[u2026]` and warns
  /// where the page is shown in ASCII (LANG=C).
  fileprivate var roffEscaped: String {
    if self == "\u{2026}" { return "..." }
    return unicodeScalars.map { scalar in
      let hex = String(scalar.value, radix: 16, uppercase: true)
      return #"\[u"# + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
    }.joined()
  }
}
