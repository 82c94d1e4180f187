// EXPECT: Monoid::reduce must update its left argument in place
// AT_MOST_LINES: 30
// A functional-style reduce would leave the left view unchanged: every merge would be lost.
#include <string>
#include <tine/core/core.hpp>

struct concat {
  using value_type = std::string;
  static std::string identity() { return {}; }
  static std::string reduce(const std::string& left, const std::string& right) {
    return left + right;
  }
};

tine::reducer<concat> text;
