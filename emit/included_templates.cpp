// included_templates: #include lines followed from the sources through the
// headers they reach under the kernel folder.
#include "emit/included_templates.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct Include {
  std::string name;
  bool quoted;
};

/// The names of the #include directives of `text`, in order.
std::vector<Include> includes_of(const std::string& text) {
  std::vector<Include> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string::npos || (line[i] != '"' && line[i] != '<')) continue;
    const char close = line[i] == '"' ? '"' : '>';
    const std::size_t end = line.find(close, i + 1);
    if (end == std::string::npos) continue;
    out.push_back({line.substr(i + 1, end - i - 1), close == '"'});
  }
  return out;
}

bool is_inside(const fs::path& file, const fs::path& dir) {
  const fs::path rel = file.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return text.str();
}

}  // namespace

std::vector<fs::path> included_templates(const fs::path& kernel_dir,
                                         const std::vector<std::string>& sources) {
  const fs::path dir = fs::weakly_canonical(kernel_dir);
  const fs::path root = dir.parent_path();
  // `beside`: the folder of the including header; empty for a source (a string, not a file).
  auto resolve = [&](const Include& inc, const fs::path& beside) -> fs::path {
    std::vector<fs::path> candidates;
    if (inc.quoted && !beside.empty()) candidates.push_back(beside / inc.name);
    candidates.push_back(root / inc.name);
    for (const fs::path& c : candidates) {
      std::error_code ec;
      if (fs::is_regular_file(c, ec)) return fs::weakly_canonical(c);
    }
    return {};
  };
  std::set<fs::path> found;
  std::vector<fs::path> pending;
  auto follow = [&](const std::string& text, const fs::path& beside) {
    for (const Include& inc : includes_of(text)) {
      const fs::path file = resolve(inc, beside);
      if (!file.empty() && is_inside(file, dir) && found.insert(file).second)
        pending.push_back(file);
    }
  };
  for (const std::string& s : sources) follow(s, {});
  while (!pending.empty()) {
    const fs::path file = pending.back();
    pending.pop_back();
    follow(read_file(file), file.parent_path());
  }
  return {found.begin(), found.end()};
}

}  // namespace ktune
