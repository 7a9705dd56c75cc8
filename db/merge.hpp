// Merge of tuning databases: the union of their measurements, de-duplicated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

struct MergeSummary {
  std::int64_t read = 0;   ///< measurements in the inputs
  std::int64_t added = 0;  ///< new to the output
  std::int64_t output_total = 0;
};

/// Copies every measurement of `inputs` into `output` (created if absent, else
/// added to). A measurement is the same one when device, family and template
/// hash, problem, configuration, source label, host and time all match: it is
/// stored once. Measurements of one configuration from different sources are
/// all kept with their provenance; views and lookups choose among verified
/// ones. An existing output is added to in place, one transaction per input.
/// A new output is written whole beside its path and published only if the
/// path is still free (PartialFile::publish_new): of merges racing to create
/// one file, one wins and the others throw with nothing written, and a merge
/// killed midway leaves no file at the path. Throws DatabaseError (inputs untouched).
MergeSummary merge_databases(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace ktune
