// The C ABI's error handling: each entry point runs its body through guard(),
// which turns every exception into a status and the thread's last-error text.
#pragma once

#include <string>

#include "capi/ktune.h"

namespace ktune::capi {

/// Records `message` as this thread's last error and returns `status`.
ktune_status fail(ktune_status status, const std::string& message);
/// Clears this thread's last error and returns KTUNE_OK.
ktune_status succeed();
/// A copy of `text` for the caller to free with ktune_free.
char* copy_out(const std::string& text);

/// Runs `body` (returning ktune_status), mapping exceptions: bad input
/// (std::invalid_argument) to KTUNE_ERROR_INVALID_ARGUMENT, DatabaseError to
/// KTUNE_ERROR_DATABASE, anything else to KTUNE_ERROR_CALL.
template <class Body>
ktune_status guard(Body&& body) noexcept;

}  // namespace ktune::capi

#include "capi/capi_status_impl.hpp"
