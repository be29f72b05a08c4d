// fmt's compiled part, built once into rocmtune-util from Debian's headers (libfmt-dev) instead of
// loaded from libfmt.so.9 at every start: the functions fmt's headers declare but define only in
// format-inl.h, and the templates the headers use without instantiating them (for char; rocmtune
// formats no wide strings). A C++ shared library at a program's start brings libstdc++.so.6 and
// its relocations with it; rocmtunectl links libstdc++ statically instead (client/CMakeLists.txt,
// BENCHMARKS.md "Before Python starts"). A template missing here is a link error, not a wrong
// program: fmt's headers declare them `extern`.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
