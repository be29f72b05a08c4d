#include "journal_world.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sys/run_command.h"

namespace fs = std::filesystem;

namespace rocmtune::testing {

std::optional<std::string> JournalRemoteUnavailable() {
  std::string tool(kJournalRemote);
  if (::access(tool.c_str(), X_OK) != 0) {
    return fmt::format("{} not found (Debian package systemd-journal-remote)", tool);
  }
  return std::nullopt;
}

JournalFields KernelEntry(std::string_view boot_id, uint64_t realtime_usec, std::string_view message) {
  return {{"__REALTIME_TIMESTAMP", std::to_string(realtime_usec)},
          {"__MONOTONIC_TIMESTAMP", std::to_string(realtime_usec % 1000000000)},
          {"_BOOT_ID", std::string(boot_id)},
          {"_TRANSPORT", "kernel"},
          {"PRIORITY", "3"},
          {"SYSLOG_FACILITY", "0"},
          {"SYSLOG_IDENTIFIER", "kernel"},
          {"_SOURCE_MONOTONIC_TIMESTAMP", std::to_string(realtime_usec % 1000000000)},
          {"MESSAGE", std::string(message)}};
}

JournalFields ServiceEntry(std::string_view boot_id, uint64_t realtime_usec, std::string_view unit,
                           std::string_view comm, int64_t pid, uint32_t uid, std::string_view message) {
  return {{"__REALTIME_TIMESTAMP", std::to_string(realtime_usec)},
          {"__MONOTONIC_TIMESTAMP", std::to_string(realtime_usec % 1000000000)},
          {"_BOOT_ID", std::string(boot_id)},
          {"_TRANSPORT", "stdout"},
          {"PRIORITY", "6"},
          {"SYSLOG_FACILITY", "3"},
          {"SYSLOG_IDENTIFIER", std::string(comm)},
          {"_PID", std::to_string(pid)},
          {"_UID", std::to_string(uid)},
          {"_GID", std::to_string(uid)},
          {"_COMM", std::string(comm)},
          {"_SYSTEMD_UNIT", std::string(unit)},
          {"MESSAGE", std::string(message)}};
}

std::string ExportFormat(const std::vector<JournalFields>& entries) {
  std::string out;
  for (const JournalFields& entry : entries) {
    for (const auto& [name, value] : entry) {
      bool binary = value.find_first_of(std::string_view("\n\0", 2)) != std::string::npos ||
                    std::any_of(value.begin(), value.end(),
                                [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\t'; });
      out += name;
      if (!binary) {
        out += "=";
        out += value;
        out += "\n";
        continue;
      }
      out += "\n";
      uint64_t size = value.size();
      for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
      out += value;
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

std::string WriteJournal(const std::string& root, const std::vector<JournalFields>& entries, std::string_view file) {
  std::string rel = file.empty() ? fmt::format("var/log/journal/{}/system.journal", kTestMachineId) : std::string(file);
  fs::path journal = fs::path(root) / rel;
  fs::create_directories(journal.parent_path());
  fs::path export_file = fs::path(root) / "entries.export";
  {
    std::ofstream out(export_file, std::ios::binary);
    out << ExportFormat(entries);
    if (!out) throw std::runtime_error("cannot write " + export_file.string());
  }
  // --split-mode=none: one output file, named by --output (it must end in .journal).
  auto result = sys::RunCommand(
      {std::string(kJournalRemote), "--split-mode=none", "--output=" + journal.string(), export_file.string()},
      std::chrono::seconds(60), 1 << 16);
  fs::remove(export_file);
  if (!result.ok) throw std::runtime_error(fmt::format("{}: {}\n{}", kJournalRemote, result.why, result.out));
  if (!fs::exists(journal)) throw std::runtime_error(fmt::format("{} wrote no {}", kJournalRemote, journal.string()));
  return journal.string();
}

}  // namespace rocmtune::testing
