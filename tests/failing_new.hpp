#ifndef TINE_TESTS_FAILING_NEW_HPP
#define TINE_TESTS_FAILING_NEW_HPP

// Allocation-failure injection for tests: linking //tests:failing_new replaces every form of the
// global operator new and delete in the test executable. While armed, the n-th call of operator
// new (counted from arm(), on every thread alike) fails: the throwing forms throw
// std::bad_alloc, the nothrow forms return null. Memory comes from malloc, so a test that also
// interposes malloc sees operator new's requests there too.

namespace tine_tests::failing_new {

/// From now on, call number `n` of operator new (1 is the next call) fails; 0: none fails.
void arm(long n) noexcept;

/// Stops failing; returns how many calls of operator new were counted since arm().
long disarm() noexcept;

}  // namespace tine_tests::failing_new

#endif  // TINE_TESTS_FAILING_NEW_HPP
