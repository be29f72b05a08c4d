// FatBinaryTargets: the .hip_fatbin section of an ELF file, found with libelf, its offload
// bundles read with bounded preads (runtime/bundle.h). hipcc/clang put a HIP program's device code
// there (clang/lib/CodeGen/CGCUDANV.cpp: section ".hip_fatbin"), and so do PyTorch's
// libtorch_hip.so and the ROCm libraries.
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/bundle.h"
#include "runtime/runtime.h"
#include "util/handle.h"

namespace rocmtune::runtime {
namespace {

using ElfHandle = Handle<Elf*, elf_end>;

// Section headers beyond this are no shared library's (libtorch_hip.so has about 40).
constexpr size_t kMaxElfSections = 1 << 16;
constexpr uint64_t kMaxSectionNames = 1 << 20;

Result<std::string> PreadExactly(int fd, uint64_t offset, size_t length, const std::string& where) {
  std::string bytes(length, '\0');
  size_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(fd, bytes.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kIo, fmt::format("cannot read {}: {}", where, std::strerror(errno)), errno);
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

// The ELF header checked before libelf sees the file: 64-bit, and its section header table
// inside the file, so libelf allocates no more than the file could hold.
Result<void> CheckElfHeader(int fd, uint64_t file_size, const std::string& where) {
  auto header = PreadExactly(fd, 0, sizeof(Elf64_Ehdr), where);
  if (!header) return tl::unexpected(header.error());
  if (header->size() < EI_NIDENT || std::memcmp(header->data(), ELFMAG, SELFMAG) != 0) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{} is not an ELF file", where));
  }
  if (header->size() < sizeof(Elf64_Ehdr) || (*header)[EI_CLASS] != ELFCLASS64) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{} is not a 64-bit ELF file", where));
  }
  Elf64_Ehdr ehdr;
  std::memcpy(&ehdr, header->data(), sizeof(ehdr));
  if ((*header)[EI_DATA] != ELFDATA2LSB) {
    return Fail(ErrorCode::kUnsupported, fmt::format("{} is a big-endian ELF file", where));
  }
  uint64_t table = uint64_t{ehdr.e_shnum} * ehdr.e_shentsize;
  if (ehdr.e_shoff > file_size || table > file_size - ehdr.e_shoff) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: its section headers lie past its end (truncated)", where));
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> FatBinaryTargets(const sys::Root& root, std::string_view rel) {
  const std::string where = root.Display(rel);
  auto fd = root.OpenRegular(rel);
  if (!fd) return tl::unexpected(fd.error());
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) {
    return Fail(ErrorCode::kIo, fmt::format("cannot examine {}: {}", where, std::strerror(errno)), errno);
  }
  const auto file_size = static_cast<uint64_t>(st.st_size);
  if (auto checked = CheckElfHeader(fd->get(), file_size, where); !checked) return tl::unexpected(checked.error());

  if (elf_version(EV_CURRENT) == EV_NONE) return Fail(ErrorCode::kIo, "libelf is out of date");
  // ELF_C_READ: libelf reads headers and the section names on demand with pread, never the whole
  // file (a 1 GiB libtorch_hip.so costs its section headers).
  ElfHandle elf(elf_begin(fd->get(), ELF_C_READ, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{} is not an ELF file: {}", where, elf_errmsg(-1)));
  }
  size_t sections = 0;
  size_t names_index = 0;
  if (elf_getshdrnum(elf.get(), &sections) != 0 || elf_getshdrstrndx(elf.get(), &names_index) != 0) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: unreadable section headers: {}", where, elf_errmsg(-1)));
  }
  if (sections > kMaxElfSections) {
    return Fail(ErrorCode::kTooLarge, fmt::format("{} claims {} sections", where, sections));
  }
  GElf_Shdr names_header;
  Elf_Scn* names = elf_getscn(elf.get(), names_index);
  if (!names || !gelf_getshdr(names, &names_header)) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: no section name table: {}", where, elf_errmsg(-1)));
  }
  if (names_header.sh_size > kMaxSectionNames || names_header.sh_offset > file_size ||
      names_header.sh_size > file_size - names_header.sh_offset) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: its section name table is out of bounds", where));
  }
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header)) continue;
    const char* name = elf_strptr(elf.get(), names_index, header.sh_name);
    if (!name || std::strcmp(name, ".hip_fatbin") != 0) continue;
    if (header.sh_type == SHT_NOBITS || header.sh_offset > file_size || header.sh_size > file_size - header.sh_offset) {
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: its .hip_fatbin section lies past its end (truncated)", where));
    }
    const int raw_fd = fd->get();
    const uint64_t section_offset = header.sh_offset;
    const uint64_t section_size = header.sh_size;
    ReadAt read = [&](uint64_t offset, size_t length) -> Result<std::string> {
      if (offset >= section_size) return std::string();
      length = static_cast<size_t>(std::min<uint64_t>(length, section_size - offset));
      return PreadExactly(raw_fd, section_offset + offset, length, where);
    };
    auto targets = BundleTargets(read, section_size);
    if (!targets) {
      Error error = targets.error();
      error.message = fmt::format("{} .hip_fatbin: {}", where, error.message);
      return tl::unexpected(std::move(error));
    }
    return targets;
  }
  return Fail(ErrorCode::kNotFound, fmt::format("{} has no .hip_fatbin section (no HIP device code)", where));
}

}  // namespace rocmtune::runtime
