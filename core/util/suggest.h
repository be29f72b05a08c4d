// "Did you mean ...?" for names a person typed: the known names nearest to `input` by optimal
// string alignment distance (insertions, deletions, substitutions and swaps of neighbours each
// cost 1), case-insensitive, within `max_distance`, nearest first, at most three.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::text {

size_t EditDistance(std::string_view a, std::string_view b);
std::vector<std::string> Nearest(std::string_view input, const std::vector<std::string>& names,
                                 size_t max_distance = 2);
// " Did you mean X?" / " Did you mean X or Y?", or "" when nothing is near.
std::string DidYouMean(std::string_view input, const std::vector<std::string>& names);

}  // namespace rocmtune::text
