// StoreLog: the tuning loop's view of the database under one RunKey.
// (Apart from tuner.cpp so that the loop links without the SQLite store.)
#include "engine/tuner.hpp"

namespace ktune {

StoreLog::StoreLog(Store& store, RunKey key, Provenance provenance)
    : store_(store), key_(std::move(key)), provenance_(std::move(provenance)) {}

std::vector<Result> StoreLog::stored() const { return store_.results(key_); }

void StoreLog::append_batch(std::span<const Result> batch) { store_.record(key_, batch, provenance_); }

std::vector<Config> StoreLog::warm_start_candidates(std::size_t) const { return {}; }

}  // namespace ktune
