// EXPECT: the pool's Observer does not satisfy tine::pool_observer
// An observer with a missing hook (and a hook that may throw) is refused with a message naming
// the concept and the hooks it needs.
#include <cstddef>
#include <tine/schedulers/lazy_pool.hpp>

struct half_an_observer {
  void on_steal(std::size_t, std::size_t) {}
};

int main() {
  half_an_observer mine;
  tine::lazy_pool pool(1, mine);
  return 0;
}
