// NVRTC's automatic precompiled header (Compiler's default where NVRTC has
// one) must not change what a candidate compiles to: the same cubin sections,
// registers and spills as without it, for real wgmma candidates (the family
// whose headers it saves the most on). Only the names of internal-linkage
// symbols, which carry a per-translation-unit hash, may differ. No GPU needed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/compiler.hpp"
#include "engine/tune_job.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune {
namespace {

/// The sections of a 64-bit little-endian ELF image (a cubin), by name.
std::map<std::string, std::string> elf_sections(const std::vector<char>& image) {
  auto read = [&image](std::size_t offset, auto value) {
    if (offset + sizeof(value) > image.size()) throw std::runtime_error("truncated ELF image");
    std::memcpy(&value, image.data() + offset, sizeof(value));
    return value;
  };
  const auto table = read(0x28, std::uint64_t{});
  const auto entry_size = read(0x3A, std::uint16_t{});
  const auto count = read(0x3C, std::uint16_t{});
  const auto names_index = read(0x3E, std::uint16_t{});
  auto header = [&](std::size_t i) { return table + i * entry_size; };
  const auto names_offset = read(header(names_index) + 0x18, std::uint64_t{});
  std::map<std::string, std::string> sections;
  for (std::size_t i = 0; i < count; ++i) {
    const auto name = read(header(i), std::uint32_t{});
    const auto type = read(header(i) + 0x04, std::uint32_t{});
    const auto offset = read(header(i) + 0x18, std::uint64_t{});
    const auto size = read(header(i) + 0x20, std::uint64_t{});
    constexpr std::uint32_t kNoBits = 8;  // .bss-like: occupies no bytes in the file
    const std::string bytes = type == kNoBits ? std::string() : std::string(image.data() + offset, size);
    sections[std::string(image.data() + names_offset + name)] = bytes;
  }
  return sections;
}

TEST(CompilerPch, WgmmaCandidatesCompileToTheSameCode) {
  const DeviceSpec d = *find_builtin_device("h200");
  const GemmFamily& family = gemm_family();
  const Problem p = parse_problem(family, "m=4096,n=4096,k=4096,layout=nt");
  Space space = family.space(p, d);
  restrict_space(space, {"PATH == 'wgmma'"});
  std::vector<KernelSource> sources;
  for (const Config& c : space.sample(4, 2026)) sources.push_back(family.source(p, c));
  ASSERT_EQ(sources.size(), 4u);

  std::vector<std::vector<CompileOutput>> outputs;
  for (bool pch : {false, true}) {
    CompilerOptions options;
    options.precompiled_headers = pch;
    const auto start = std::chrono::steady_clock::now();
    outputs.push_back(Compiler(options).compile_all(sources));
    std::printf("precompiled headers %s: %zu wgmma candidates in %.2f s\n", pch ? "on" : "off", sources.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const CompileOutput& plain = outputs[0][i];
    const CompileOutput& with_pch = outputs[1][i];
    ASSERT_TRUE(plain.ok) << plain.log.substr(0, 2000);
    ASSERT_TRUE(with_pch.ok) << with_pch.log.substr(0, 2000);
    ASSERT_EQ(plain.kernels.size(), with_pch.kernels.size());
    for (std::size_t k = 0; k < plain.kernels.size(); ++k) {
      EXPECT_EQ(plain.kernels[k].lowered_name, with_pch.kernels[k].lowered_name);
      EXPECT_EQ(plain.kernels[k].registers, with_pch.kernels[k].registers);
      EXPECT_EQ(plain.kernels[k].spill_store_bytes, with_pch.kernels[k].spill_store_bytes);
    }
    auto a = elf_sections(plain.cubin);
    auto b = elf_sections(with_pch.cubin);
    ASSERT_TRUE(a.count(".strtab") && b.count(".strtab"));
    a.erase(".strtab");  // symbol names: internal-linkage ones embed a per-compile hash
    b.erase(".strtab");
    EXPECT_GT(a.size(), 5u);
    for (const auto& [name, bytes] : a) {
      ASSERT_TRUE(b.count(name)) << name;
      EXPECT_TRUE(bytes == b.at(name)) << "section " << name << " differs for " << sources[i].kernels.front();
    }
    EXPECT_EQ(a.size(), b.size());
  }
}

}  // namespace
}  // namespace ktune
