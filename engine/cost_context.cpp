// Cost context: the family's roofline handed to search strategies.
#include "engine/cost_context.hpp"

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

}  // namespace ktune
