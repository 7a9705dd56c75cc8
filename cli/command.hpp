// Command registry of the `ktune` CLI: each subcommand lives in its own file
// and registers itself here; main() builds the CLI11 app from the registry.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/db_paths.hpp"
#include "space/device_spec.hpp"

namespace ktune::cli {

/// Bad input from the user (a malformed problem, an unknown family, ...):
/// main() prints the message and exits with 2, as it does for
/// std::invalid_argument and DatabaseError (a database file it cannot use).
/// Other exceptions are failures of the work itself: exit 1.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Adds one subcommand (with its options) to the app. The subcommand's
/// callback stores its exit code with set_exit_code().
using CommandSetup = std::function<void(CLI::App& app)>;

/// Registers a subcommand at static-initialisation time; `order` sorts the
/// entries of `ktune --help`.
struct CommandRegistrar {
  CommandRegistrar(int order, CommandSetup setup);
};

void set_exit_code(int code);

/// The built-in device named `name_or_arch` (as --device takes it); a
/// UsageError listing the built-in devices when there is none.
DeviceSpec builtin_device_or_usage_error(const std::string& name_or_arch);

}  // namespace ktune::cli
