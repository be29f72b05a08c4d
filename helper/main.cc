// rocmtune-helper: the privileged writer (ARCHITECTURE.md "Security model"). Started by rocmtuned, or by
// rocmtunectl for --root trees and offline use; reads a plan on stdin, prints one JSON result.
#include "helper/helper_main.h"

int main(int argc, char** argv) {
  rocmtune::helper::NoHooks hooks;
  return rocmtune::helper::HelperMain(argc, argv, hooks);
}
