// `ktune worker`: the GPU worker process of IsolatedEvaluator (internal; not
// listed in --help). Speaks the JSON-lines protocol of engine/worker_protocol.hpp.
#include <unistd.h>

#include <iostream>

#include "cli/command.hpp"
#include "engine/worker_protocol.hpp"
#include "kernels_user/user_kernels.hpp"

namespace ktune::cli {
namespace {

int run_worker_command() {
  // Keep the protocol on a private copy of stdout and send fd 1 to stderr, so
  // that nothing printed by a library can break a protocol line.
  int protocol_fd = ::dup(STDOUT_FILENO);
  if (protocol_fd < 0) return 1;
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  std::ios::sync_with_stdio(false);
  user::load_user_kernels_from_env();  // the parent's user kernels (a description it read)
  return run_worker(std::cin, protocol_fd);
}

const CommandRegistrar registrar(900, [](CLI::App& app) {
  auto* cmd = app.add_subcommand("worker",
                                 "Internal: evaluate configurations for a parent ktune process "
                                 "(JSON lines on stdin and stdout)");
  cmd->group("");  // hidden from `ktune --help`
  cmd->callback([] { set_exit_code(run_worker_command()); });
});

}  // namespace
}  // namespace ktune::cli
