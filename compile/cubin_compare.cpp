#include "compile/cubin_compare.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <regex>

namespace ktune {
namespace {

// ELF64 little-endian layout (the only kind NVRTC writes for sm_XX cubins).
constexpr std::size_t kHeaderSize = 64, kSectionHeaderSize = 64, kSymbolSize = 24;
constexpr std::uint32_t kSymtab = 2, kStrtab = 3, kNobits = 8;

template <typename T>
std::optional<T> read(const std::vector<char>& f, std::size_t offset) {
  if (offset > f.size() || f.size() - offset < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, f.data() + offset, sizeof(T));
  return v;
}

struct Section {
  std::string name;  ///< module ids taken out
  std::uint32_t type = 0, link = 0, info = 0;
  std::uint64_t flags = 0, offset = 0, size = 0, align = 0, entsize = 0;
};

struct Elf {
  std::uint16_t type = 0, machine = 0;
  std::uint32_t flags = 0;
  std::vector<Section> sections;
};

std::optional<std::string> string_at(const std::vector<char>& f, const Section& table,
                                     std::uint64_t index) {
  if (index >= table.size || table.offset + table.size > f.size()) return std::nullopt;
  const char* begin = f.data() + table.offset + index;
  const std::size_t room = table.size - index;
  const std::size_t length = strnlen(begin, room);
  if (length == room) return std::nullopt;  // not terminated inside the table
  return std::string(begin, length);
}

std::optional<Elf> parse(const std::vector<char>& f) {
  // \x7fELF, 64-bit, little-endian.
  constexpr char kMagic[] = {0x7f, 'E', 'L', 'F', 2, 1};
  if (f.size() < kHeaderSize || std::memcmp(f.data(), kMagic, sizeof kMagic) != 0)
    return std::nullopt;
  Elf e;
  e.type = *read<std::uint16_t>(f, 16);
  e.machine = *read<std::uint16_t>(f, 18);
  e.flags = *read<std::uint32_t>(f, 48);
  const std::uint64_t shoff = *read<std::uint64_t>(f, 40);
  const std::uint16_t shentsize = *read<std::uint16_t>(f, 58), shnum = *read<std::uint16_t>(f, 60),
                      shstrndx = *read<std::uint16_t>(f, 62);
  if (shentsize != kSectionHeaderSize || shstrndx >= shnum) return std::nullopt;
  std::vector<std::uint32_t> name_offsets;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + std::uint64_t{i} * kSectionHeaderSize;
    if (shoff > f.size() || h > f.size() || f.size() - h < kSectionHeaderSize) return std::nullopt;
    const std::uint32_t name = *read<std::uint32_t>(f, h);
    Section s;
    s.type = *read<std::uint32_t>(f, h + 4);
    s.flags = *read<std::uint64_t>(f, h + 8);
    s.offset = *read<std::uint64_t>(f, h + 24);
    s.size = *read<std::uint64_t>(f, h + 32);
    s.link = *read<std::uint32_t>(f, h + 40);
    s.info = *read<std::uint32_t>(f, h + 44);
    s.align = *read<std::uint64_t>(f, h + 48);
    s.entsize = *read<std::uint64_t>(f, h + 56);
    if (s.type != kNobits && (s.offset > f.size() || f.size() - s.offset < s.size))
      return std::nullopt;
    name_offsets.push_back(name);
    e.sections.push_back(s);
  }
  for (std::uint16_t i = 0; i < shnum; ++i) {
    auto name = string_at(f, e.sections[shstrndx], name_offsets[i]);
    if (!name) return std::nullopt;
    e.sections[i].name = without_module_ids(*name);
  }
  return e;
}

bool fail(std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return false;
}

// Symbol tables: every field but the name's offset, and the name itself with module ids taken out.
bool same_symbols(const std::vector<char>& fa, const Elf& a, const Section& sa,
                  const std::vector<char>& fb, const Elf& b, const Section& sb, std::string* why) {
  if (sa.entsize != kSymbolSize || sa.link >= a.sections.size() || sb.link >= b.sections.size())
    return fail(why, "malformed symbol table");
  for (std::uint64_t at = 0; at + kSymbolSize <= sa.size; at += kSymbolSize) {
    const auto na = string_at(fa, a.sections[sa.link], *read<std::uint32_t>(fa, sa.offset + at));
    const auto nb = string_at(fb, b.sections[sb.link], *read<std::uint32_t>(fb, sb.offset + at));
    if (!na || !nb) return fail(why, "malformed symbol name");
    if (without_module_ids(*na) != without_module_ids(*nb))
      return fail(why, "symbol " + *na + " against " + *nb);
    if (std::memcmp(fa.data() + sa.offset + at + 4, fb.data() + sb.offset + at + 4,
                    kSymbolSize - 4) != 0)
      return fail(why, "symbol " + *na + " differs");
  }
  return true;
}

}  // namespace

std::string without_module_ids(const std::string& name) {
  // _INTERNAL_ or _GLOBAL__N__ (an anonymous namespace), then <8 hex>_<length>_
  // <file name>_cu_<8 hex>, sometimes _<decimal>; in a mangled name preceded
  // by its own length, which the id's length changes. Digits right after a
  // trailing _<decimal> are taken too: in a mangled name they can only be the
  // next name's length, the same on both sides.
  static const std::regex id(
      R"((\d+)?(_INTERNAL_|_GLOBAL__N__)[0-9a-f]{8}_\d+_\w*?_cu_[0-9a-f]{8}(_\d+)?)");
  return std::regex_replace(name, id, "$2");
}

bool same_machine_code(const std::vector<char>& a, const std::vector<char>& b, std::string* why) {
  const auto ea = parse(a), eb = parse(b);
  if (!ea || !eb) return fail(why, "not a 64-bit ELF file");
  if (ea->type != eb->type || ea->machine != eb->machine || ea->flags != eb->flags)
    return fail(why, "ELF headers differ");
  if (ea->sections.size() != eb->sections.size()) return fail(why, "different section counts");
  for (std::size_t i = 0; i < ea->sections.size(); ++i) {
    const Section &sa = ea->sections[i], &sb = eb->sections[i];
    if (sa.name != sb.name || sa.type != sb.type || sa.flags != sb.flags || sa.link != sb.link ||
        sa.info != sb.info || sa.align != sb.align || sa.entsize != sb.entsize)
      return fail(why, "section " + sa.name + " against " + sb.name);
    // String tables differ by the module ids they hold; their strings are
    // compared where they are used (section and symbol names).
    if (sa.type == kStrtab) continue;
    if (sa.size != sb.size) return fail(why, "section " + sa.name + " has another size");
    if (sa.type == kSymtab) {
      if (!same_symbols(a, *ea, sa, b, *eb, sb, why)) return false;
      continue;
    }
    if (sa.type != kNobits && std::memcmp(a.data() + sa.offset, b.data() + sb.offset, sa.size) != 0)
      return fail(why, "section " + sa.name + " differs");
  }
  return true;
}

}  // namespace ktune
