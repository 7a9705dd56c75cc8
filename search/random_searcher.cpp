// `random`: uniform sampling of the valid configurations without replacement.
#include "search/strategies.hpp"

#include <algorithm>

namespace ktune::detail {
namespace {

class RandomSearcher final : public SearcherBase {
 public:
  using SearcherBase::SearcherBase;
  std::string_view name() const override { return "random"; }

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    if (const auto* all = listing()) {
      // A seeded permutation of the enumeration: each draw is uniform among
      // the configurations not drawn yet.
      if (order_.empty() && !all->empty()) {
        order_.resize(all->size());
        for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
        std::shuffle(order_.begin(), order_.end(), rng_);
      }
      while (out.size() < count && cursor_ < order_.size()) {
        Config c = space().config_at(all->row(order_[cursor_++]));
        if (take(c)) out.push_back(std::move(c));
      }
      return out;
    }
    for (auto& c : sample_unseen(count))
      if (take(c)) out.push_back(std::move(c));
    return out;
  }

 private:
  std::vector<std::size_t> order_;
  std::size_t cursor_ = 0;
};

}  // namespace

std::unique_ptr<Searcher> make_random_searcher(const SearchContext& context) {
  return std::make_unique<RandomSearcher>(context);
}

}  // namespace ktune::detail
