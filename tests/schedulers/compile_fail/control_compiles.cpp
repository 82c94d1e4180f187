// EXPECT: COMPILES
// A user-written observer (every hook of observer_base, one redefined) on both pools: this file
// must compile, so the failure next to it is real.
#include <cstddef>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

struct steals_only : tine::observer_base {
  std::size_t steals = 0;
  void on_steal(std::size_t, std::size_t) noexcept { ++steals; }
};

int main() {
  steals_only mine;
  tine::lazy_pool lazy(1, mine);
  tine::busy_pool<tine::numa_victims, steals_only> busy(1, mine);
  return static_cast<int>(mine.steals);
}
