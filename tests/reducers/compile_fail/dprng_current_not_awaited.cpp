// EXPECT: tine::dprng::current() must be co_awaited in a task
// AT_MOST_LINES: 30
#include <tine/core/core.hpp>

tine::task<long> draw() {
  tine::dprng rng = tine::dprng::current();
  co_return static_cast<long>(rng() % 100);
}
