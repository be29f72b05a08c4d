#include "client/table.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::client {

void Table::AddRow(std::vector<std::string> row) {
  // Cells quote files: escaped here (newlines too, a cell is one line) so widths are measured
  // on the text as shown; the output filter (client/escaped_output.h) then finds nothing left.
  for (std::string& cell : row) cell = text::EscapeControl(cell);
  rows_.push_back(std::move(row));
}

std::string Table::Render() const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      line += cell;
      if (i + 1 < widths.size()) line += std::string(widths[i] - cell.size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  emit(header_);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace rocmtune::client
