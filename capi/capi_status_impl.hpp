// guard(): the template body of capi_status.hpp.
#pragma once

#include <exception>
#include <stdexcept>

#include "db/store.hpp"

namespace ktune::capi {

template <class Body>
ktune_status guard(Body&& body) noexcept {
  try {
    return body();
  } catch (const DatabaseError& e) {
    return fail(KTUNE_ERROR_DATABASE, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(KTUNE_ERROR_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return fail(KTUNE_ERROR_CALL, e.what());
  } catch (...) {
    return fail(KTUNE_ERROR_CALL, "unknown error");
  }
}

}  // namespace ktune::capi
