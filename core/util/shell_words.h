// The one shell-words lexer: the part of POSIX sh (XCU 2.2-2.6, 2.9.1) that assignment files use
// (/etc/default/grub and grub.d/*.cfg sourced by grub-mkconfig, /etc/profile and profile.d/*.sh).
// It never executes anything. It yields the simple commands made of assignments, each value as
// segments: literal text, `$NAME` / `${NAME}` expansion points (callers expand them with their
// own variable table), and command substitutions kept as opaque source text. Every other
// construct (other commands, if/for, ${X:-y}, $((...)), special parameters, tilde expansion,
// operators) makes the command "unsupported", with the reason.
//
// Modelled: `NAME=word` and `export NAME=word` (several per command, ';' between commands),
// words made of unquoted text, '...', "..." (where \ escapes only $ ` " \ and newline),
// backslash escapes outside quotes, line continuations, and comments where a word would start.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::shell {

struct Segment {
  enum Kind { kText, kParam, kCommand } kind;
  std::string text;  // kText: the bytes; kParam: the name; kCommand: the source, for messages
};

struct Assignment {
  std::string name;
  std::vector<Segment> value;
  size_t value_begin = 0;  // the value's raw bytes in the source
  size_t value_end = 0;
  int line = 0;  // 1-based line of the name
  // false: the value holds a construct the lexer does not model (the command is unsupported);
  // the assignment still happens when the shell runs it, to a value only the shell knows.
  bool complete = true;
};

struct Command {
  int line = 0;
  std::vector<Assignment> assignments;  // in order; when unsupported, those read before the stop
  std::string unsupported;              // non-empty: a construct that is not modelled, and why
};

// Every simple command of `script`, in order. After an unsupported command the rest of its line
// is skipped; after an unterminated quote (or a NUL byte) nothing more is read.
std::vector<Command> ParseScript(std::string_view script);

// The value when it is all literal text; nullopt when it needs an expansion.
std::optional<std::string> LiteralValue(const std::vector<Segment>& value);

// A shell variable name (XCU 3.235): [A-Za-z_][A-Za-z0-9_]*.
bool IsName(std::string_view s);

// At most 40 bytes of `s` on one line, for messages.
std::string Short(std::string_view s);

}  // namespace rocmtune::shell
