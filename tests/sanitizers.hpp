#ifndef TINE_TESTS_SANITIZERS_HPP
#define TINE_TESTS_SANITIZERS_HPP

// Which sanitizer this test build runs under (GCC's macros, clang's __has_feature), for tests that
// trim large cases there or avoid what a sanitizer refuses:
//   TINE_TEST_TSAN       defined under ThreadSanitizer
//   TINE_TEST_SANITIZED  defined under AddressSanitizer or ThreadSanitizer
// and the same as constants, tine_tests::thread_sanitizer and tine_tests::sanitized.

#if defined(__SANITIZE_THREAD__)
#define TINE_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TINE_TEST_TSAN 1
#endif
#endif

#if defined(TINE_TEST_TSAN) || defined(__SANITIZE_ADDRESS__)
#define TINE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TINE_TEST_SANITIZED 1
#endif
#endif

namespace tine_tests {

#ifdef TINE_TEST_TSAN
inline constexpr bool thread_sanitizer = true;
#else
inline constexpr bool thread_sanitizer = false;
#endif

#ifdef TINE_TEST_SANITIZED
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif

}  // namespace tine_tests

#endif  // TINE_TESTS_SANITIZERS_HPP
