#include "knowledge/family.h"

#include "util/enum_names.h"

namespace rocmtune::knowledge {
namespace {

constexpr EnumNames<Family, 12> kNames = {{
    {Family::kGcn3, "GCN3"},
    {Family::kGcn4, "GCN4"},
    {Family::kGcn5, "GCN5"},
    {Family::kRdna1, "RDNA1"},
    {Family::kRdna2, "RDNA2"},
    {Family::kRdna3, "RDNA3"},
    {Family::kRdna3_5, "RDNA3.5"},
    {Family::kRdna4, "RDNA4"},
    {Family::kCdna1, "CDNA1"},
    {Family::kCdna2, "CDNA2"},
    {Family::kCdna3, "CDNA3"},
    {Family::kCdna4, "CDNA4"},
}};
static_assert(Distinct(kNames));

}  // namespace

std::string_view FamilyName(Family family) { return NameOf(kNames, family, "?"); }

std::optional<Family> ParseFamily(std::string_view name) { return ParseName(kNames, name); }

}  // namespace rocmtune::knowledge
