// Cost context: the family's roofline handed to search strategies.
#include "engine/cost_context.hpp"

#include <algorithm>
#include <limits>
#include <memory>

namespace ktune {

void attach_cost_model(SearchContext& context, const KernelFamily& family, const Problem& problem,
                       const DeviceSpec& device) {
  if (device.sm_count <= 0) return;
  const KernelFamily* f = &family;
  auto model = std::make_shared<RooflineModel>(device);
  context.work_estimate = [f, problem, device](const Config& c) {
    return f->estimate(problem, c, device);
  };
  context.predicted_time = [f, problem, device, model](const Config& c) {
    try {
      return model->predict(f->estimate(problem, c, device)).time_s;
    } catch (const std::exception&) {
      return std::numeric_limits<double>::infinity();
    }
  };
  context.roofline = *model;
}

std::optional<RecordingModelInputs> model_inputs_of(const RecordedSpace& rec) {
  std::vector<std::string> known = family_names();
  if (std::find(known.begin(), known.end(), rec.family) == known.end()) return std::nullopt;
  std::optional<DeviceSpec> device = rec.device;
  if (!device || device->sm_count <= 0) device = find_builtin_device(rec.device_name);
  if (!device) return std::nullopt;
  return RecordingModelInputs{&find_family(rec.family), *device};
}

}  // namespace ktune
