// EXPECT: Monoid must have `static value_type identity()`
// AT_MOST_LINES: 30
#include <tine/core/core.hpp>

struct longest {
  using value_type = long;
  static void reduce(long& left, long& right) { left = left > right ? left : right; }
};

tine::reducer<longest> best;
