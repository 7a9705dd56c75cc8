// family_source_hash: the version key of a kernel family, the hash of its
// template files' text (results measured with other text are stale).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/compiler.hpp"
#include "space/value_map.hpp"

namespace ktune {

std::string family_source_hash(const KernelFamily& family) {
  const std::filesystem::path dir = Compiler::kernel_dir();
  std::string all;
  for (const auto& rel : family.template_files()) {
    std::ifstream in(dir / rel, std::ios::binary);
    if (!in)
      throw std::runtime_error("kernel family '" + std::string(family.name()) +
                               "': cannot read template file " + (dir / rel).string() +
                               " (set KTUNE_KERNEL_DIR to the kernels_templated folder)");
    std::ostringstream text;
    text << in.rdbuf();
    all += text.str();
  }
  return stable_hash_hex(all);
}

}  // namespace ktune
