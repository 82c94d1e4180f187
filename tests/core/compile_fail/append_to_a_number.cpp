// EXPECT: tine::append<Container>: Container must be a sequence container
// AT_MOST_LINES: 60
#include <tine/core/core.hpp>

tine::reducer<tine::append<long>> all;
