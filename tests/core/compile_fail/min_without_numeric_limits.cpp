// EXPECT: tine::min<T> / tine::max<T>: T needs std::numeric_limits
// AT_MOST_LINES: 60
#include <string>
#include <tine/core/core.hpp>

tine::reducer<tine::min<std::string>> first_name;
