// What a bug-report archive takes out of the files it copies (snapshot/redact.h): the input is
// split (fuzz::kSeparator) into a host name, a root-relative path and the file's content. After
// redaction no hardware address, home directory name or (outside sysfs and os-release) whole-word
// host name may be left. (Redacting twice is not the same as once: "/home/NAME:11:22:33:44:55"
// becomes "/home/redacted:11:...", whose "ed:11:..." a second pass reads as an address.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "snapshot/redact.h"

using namespace rocmtune;

namespace {

// Host names the check holds for: a name made of what host names are made of, that does not
// itself contain the replacement word (a host called "redacted-x" could be re-formed from it).
bool CheckableName(std::string_view name) {
  if (name.size() < 3 || name.find(snapshot::kRedacted) != std::string_view::npos) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  return name != "localhost" && name != "localhost.localdomain";
}

bool Hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// No hardware address is left in `text`: every run of six or more hex pairs joined by one
// separator (':' or '-'), not starting inside a longer hex word, is all zeros — unless it starts
// inside the replacement word ("/home/redacted:cc:dd:ee:bb:cc" reads as an address from its "ed"
// on, and is five pairs of the original). A hex word after the pairs ends the run before it
// ("..:cc:debian" is an address and a host name, which becomes "..:00:redacted"). Written apart
// from redact.cc's scanner, as the oracle for it.
bool MacsRedacted(const std::string& text) {
  std::vector<bool> in_word(text.size(), false);
  for (size_t at = text.find(snapshot::kRedacted); at != std::string::npos; at = text.find(snapshot::kRedacted, at + 1))
    for (size_t k = 0; k < snapshot::kRedacted.size(); ++k) in_word[at + k] = true;
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    if ((i > 0 && Hex(text[i - 1])) || !Hex(text[i]) || !Hex(text[i + 1])) continue;
    char sep = text[i + 2];
    if (sep != ':' && sep != '-') continue;
    size_t pairs = 0, at = i;
    bool zeros = true;
    while (at + 1 < text.size() && Hex(text[at]) && Hex(text[at + 1])) {
      if (at + 2 < text.size() && Hex(text[at + 2])) break;  // a hex word ends the run
      zeros = zeros && text[at] == '0' && text[at + 1] == '0';
      ++pairs;
      at += 2;
      if (at + 1 < text.size() && text[at] == sep && Hex(text[at + 1])) ++at;
      else break;
    }
    if (pairs < 6) continue;
    if (!zeros && !in_word[i]) return false;
    i = at - 1;  // a pair belongs to one run: "aa-bb-cc-dd-ee-ff:11:22" is one address and a rest
  }
  return true;
}

// Every "/home/" in `text` is followed by the replacement word or by no name at all (a name: what
// RedactHomes takes as one). A host name taken out after the homes may leave "redacted" followed
// by more name bytes; what matters is that no user's name follows "/home/".
bool HomesRedacted(std::string_view text) {
  static constexpr std::string_view kHome = "/home/";
  for (size_t at = text.find(kHome); at != std::string_view::npos; at = text.find(kHome, at + 1)) {
    std::string_view rest = text.substr(at + kHome.size());
    if (rest.empty() || rest.starts_with(snapshot::kRedacted)) continue;
    unsigned char c = static_cast<unsigned char>(rest.front());
    bool name = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' ||
                c == '.' || c >= 0x80;
    if (name) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), 3);
  const std::string_view host = parts[0], rel = parts[1], content = parts[2];

  (void)snapshot::Redactor::MayCopy(rel);
  const snapshot::Redactor redactor(std::vector<std::string>{std::string(host)});
  const std::string out = redactor.Redact(rel, content);

  if (!MacsRedacted(out)) std::abort();   // a hardware address left
  if (!HomesRedacted(out)) std::abort();  // a user's home directory name left
  const bool keeps_names = rel.starts_with("sys/") || rel.ends_with("os-release");
  if (!keeps_names && CheckableName(host)) {
    std::string_view short_name = host.substr(0, host.find('.'));
    if (snapshot::RedactWord(out, host) != out) std::abort();
    if (CheckableName(short_name) && snapshot::RedactWord(out, short_name) != out) std::abort();
  }
  return 0;
}
