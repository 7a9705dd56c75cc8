// Cost context: gives a search strategy the family's roofline model (predicted
// times, work estimates, a calibratable model) for one problem on one device.
#pragma once

#include <optional>

#include "kernels_templated/family.hpp"
#include "search/recorded_space.hpp"
#include "search/searcher.hpp"

namespace ktune {

/// Fills context.predicted_time, work_estimate and roofline from the family's
/// estimate() and the device's ceilings. Leaves the context as it is when the
/// device has no spec (sm_count 0). Configurations the family cannot estimate
/// predict +infinity rather than throwing inside a searcher.
void attach_cost_model(SearchContext& context, const KernelFamily& family, const Problem& problem,
                       const DeviceSpec& device);

/// What a recording needs for a cost model: its ktune family and a device spec
/// (the recorded one, else the built-in spec of its device name). nullopt for
/// recordings of kernels ktune does not have (foreign files) or unknown GPUs.
struct RecordingModelInputs {
  const KernelFamily* family = nullptr;
  DeviceSpec device;
};
std::optional<RecordingModelInputs> model_inputs_of(const RecordedSpace& recording);

}  // namespace ktune
