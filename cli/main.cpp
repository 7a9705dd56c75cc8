// ktune: command-line entry point. Builds the subcommands from the registry,
// runs the chosen one, and turns exceptions into a message and an exit code.
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.hpp"
#include "compile/version.hpp"
#include "db/store.hpp"

namespace ktune::cli {
namespace {

struct Entry {
  int order;
  CommandSetup setup;
};

std::vector<Entry>& registry() {
  static std::vector<Entry> entries;
  return entries;
}

int& exit_code() {
  static int code = 0;
  return code;
}

// A message quotes what it refuses, and a 1 MB argument or record came back
// whole. A long one keeps its start (what is wrong) and its end; the middle
// is left out, cut at UTF-8 character boundaries.
std::string bounded(std::string_view what) {
  constexpr std::size_t kHead = 480, kTail = 160, kSlack = 64;
  if (what.size() <= kHead + kTail + kSlack) return std::string(what);
  auto character_start = [&](std::size_t i) {
    while (i < what.size() && (static_cast<unsigned char>(what[i]) & 0xc0) == 0x80) ++i;
    return i;
  };
  const std::size_t head = character_start(kHead), tail = character_start(what.size() - kTail);
  return std::string(what.substr(0, head)) + " [... " + std::to_string(tail - head) +
         " bytes left out ...] " + std::string(what.substr(tail));
}

}  // namespace

CommandRegistrar::CommandRegistrar(int order, CommandSetup setup) {
  registry().push_back({order, std::move(setup)});
}

void set_exit_code(int code) { exit_code() = code; }

DeviceSpec builtin_device_or_usage_error(const std::string& name_or_arch) {
  if (std::optional<DeviceSpec> device = find_builtin_device(name_or_arch)) return *device;
  std::string known;
  for (const DeviceSpec& d : builtin_devices())
    known += (known.empty() ? "" : ", ") + d.name + " (" + d.arch() + ")";
  throw UsageError("unknown device '" + name_or_arch + "' (built in: " + known + ")");
}

}  // namespace ktune::cli

int main(int argc, char** argv) {
  using namespace ktune::cli;
  CLI::App app{
      "ktune: autotuning engine for CUDA kernels with a persistent tuning database.\n"
      "Tunes parameterized CUDA templates (GEMM, reductions, softmax, RMSNorm) on the GPU,\n"
      "verifies every candidate against a reference, and keeps every result in SQLite."};
  app.set_version_flag("--version", ktune::version_text());
  app.require_subcommand(1);
  app.fallthrough(false);
  // Stable: commands of equal order keep the order they registered in.
  std::stable_sort(registry().begin(), registry().end(),
                   [](const Entry& a, const Entry& b) { return a.order < b.order; });
  for (auto& entry : registry()) entry.setup(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the help, the version or what is wrong with the command
    // line; a malformed command line is a usage error like any other (exit 2,
    // not CLI11's own codes).
    if (e.get_exit_code() == 0) return app.exit(e);
    std::ostringstream out, err;
    app.exit(e, out, err);
    std::cout << bounded(out.str());
    std::cerr << bounded(err.str());
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "ktune: " << bounded(e.what()) << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "ktune: " << bounded(e.what()) << "\n";
    return 2;
  } catch (const ktune::DatabaseError& e) {
    // A database file the command cannot use (missing, not ktune's, corrupt,
    // of another schema version, not writable): bad input, like a malformed
    // problem, named in the message.
    std::cerr << "ktune: " << bounded(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ktune: error: " << bounded(e.what()) << "\n";
    return 1;
  }
  return exit_code();
}
