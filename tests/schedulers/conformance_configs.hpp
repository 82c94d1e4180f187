// The schedulers the conformance kit runs over, each at 1, 2 and 5 workers (5 > the 2 cores of
// CI: oversubscription must still complete).
#ifndef TINE_TESTS_SCHEDULERS_CONFORMANCE_CONFIGS_HPP
#define TINE_TESTS_SCHEDULERS_CONFORMANCE_CONFIGS_HPP

#include <chrono>
#include <cstddef>
#include <memory>

#include <tine/testing/conformance_boost_test.hpp>

namespace tine_tests {

template <typename Scheduler, std::size_t Workers>
struct config {
  static constexpr std::size_t workers = Workers;
  static std::unique_ptr<Scheduler> make() { return std::make_unique<Scheduler>(Workers); }
};

// Runs the whole kit on Config's scheduler.
template <typename Config>
void conforms() {
  auto s = Config::make();
  tine::testing::conformance_options opts;
  opts.workers = Config::workers;
  tine::testing::boost_test::expect_conformance(*s, opts);
}

}  // namespace tine_tests

#endif  // TINE_TESTS_SCHEDULERS_CONFORMANCE_CONFIGS_HPP
