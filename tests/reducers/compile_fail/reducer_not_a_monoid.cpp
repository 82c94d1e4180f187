// EXPECT: Monoid must name the type of its views
// AT_MOST_LINES: 30
// A monoid needs value_type, identity() and reduce(left, right).
#include <tine/core/core.hpp>

struct counter {
  long n = 0;
};

tine::reducer<counter> total;
