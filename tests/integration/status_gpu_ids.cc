// status_gpu_ids: reads `rocmtunectl status --json` on stdin and prints one line per GPU,
//   <gpus[].id> <gpus[].pci_id>      e.g. "0000:64:00.0 1002:15bf"
// (same format as rsmi_list, so the two lists can be compared with sort/diff). Exit 1 on bad input.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

int main() {
  try {
    const auto doc = nlohmann::json::parse(std::cin);
    for (const auto& gpu : doc.at("gpus")) {
      const auto id = gpu.at("id").get<std::string>();
      const auto pci_id = gpu.at("pci_id").is_string() ? gpu.at("pci_id").get<std::string>() : std::string("null");
      std::cout << id << ' ' << pci_id << '\n';
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "status_gpu_ids: cannot read status JSON: %s\n", e.what());
    return 1;
  }
  return 0;
}
