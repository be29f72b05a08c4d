// grub_eval: rocmtune's view of GRUB's defaults, for grub_sourcing_test.sh to compare with what
// /bin/sh computes by sourcing the same files.
//   grub_eval [--no-dropins] linux|linux_default|effective ROOT
//       prints the value exactly as computed (no newline added); exit 3, with the reasons on
//       stderr, when rocmtune says the value is unknown; 1 on errors.
//   grub_eval dropin VAR TOKEN...
//       prints the drop-in rocmtune would write (RocmtuneDropIn).
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "boot/grub_config.h"

namespace {

int Usage() {
  std::fputs(
      "usage: grub_eval [--no-dropins] linux|linux_default|effective ROOT\n"
      "       grub_eval dropin VAR TOKEN...\n",
      stderr);
  return 2;
}

int PrintDropIn(int argc, char** argv) {
  if (argc < 4) return Usage();
  std::vector<std::string> tokens(argv + 3, argv + argc);
  auto text = rocmtune::boot::RocmtuneDropIn(argv[2], tokens);
  if (!text) {
    std::fprintf(stderr, "grub_eval: %s\n", text.error().message.c_str());
    return 1;
  }
  std::fputs(text->c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == "dropin") return PrintDropIn(argc, argv);
  int i = 1;
  bool dropins = true;
  if (i < argc && std::string_view(argv[i]) == "--no-dropins") {
    dropins = false;
    ++i;
  }
  if (argc - i != 2) return Usage();
  std::string_view what = argv[i];
  auto root = rocmtune::sys::Root::Open(argv[i + 1]);
  if (!root) {
    std::fprintf(stderr, "grub_eval: %s\n", root.error().message.c_str());
    return 1;
  }
  auto vars = rocmtune::boot::EvaluateGrubDefaults(*root, dropins);
  if (!vars) {
    std::fprintf(stderr, "grub_eval: %s\n", vars.error().message.c_str());
    return 1;
  }
  std::optional<std::string> value;
  if (what == "linux") {
    value = vars->linux;
  } else if (what == "linux_default") {
    value = vars->linux_default;
  } else if (what == "effective") {
    value = rocmtune::boot::EffectiveLinuxArgs(*vars);
  } else {
    return Usage();
  }
  if (!value) {
    std::fputs("unknown\n", stderr);
    for (const std::string& u : vars->unsupported) std::fprintf(stderr, "  unsupported: %s\n", u.c_str());
    for (const std::string& o : vars->opaque) std::fprintf(stderr, "  opaque: %s\n", o.c_str());
    return 3;
  }
  std::fwrite(value->data(), 1, value->size(), stdout);
  return 0;
}
