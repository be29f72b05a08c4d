// GPU architecture families as rocmtune reports them (status JSON `family`).
#pragma once

#include <optional>
#include <string_view>

namespace rocmtune::knowledge {

enum class Family { kGcn3, kGcn4, kGcn5, kRdna1, kRdna2, kRdna3, kRdna3_5, kRdna4, kCdna1, kCdna2, kCdna3, kCdna4 };

std::string_view FamilyName(Family family);
// Exact, case-sensitive names as in the JSON contract ("RDNA3.5", "CDNA3").
std::optional<Family> ParseFamily(std::string_view name);

}  // namespace rocmtune::knowledge
