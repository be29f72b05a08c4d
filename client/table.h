// Plain aligned text tables for people (the --json output is for scripts).
#pragma once

#include <string>
#include <vector>

namespace rocmtune::client {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row);
  // Columns separated by two spaces; trailing spaces trimmed.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace rocmtune::client
