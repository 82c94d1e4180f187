// EXPECT: tine needs C++20: compile with -std=c++20
// FLAGS: -std=c++17
// AT_MOST_LINES: 12
// Built as C++17: tine's #error comes first and compilation stops there (core/config.hpp).
#include <tine/core/core.hpp>

int main() { return 0; }
