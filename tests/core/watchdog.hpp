#ifndef TINE_TESTS_CORE_WATCHDOG_HPP
#define TINE_TESTS_CORE_WATCHDOG_HPP

// Turns a hang into a failure with a name: runs a piece of a test under a watchdog thread that
// ends the process with a message if the piece has not returned within the limit (a hung test
// would otherwise only reach Bazel's timeout, minutes later, without saying where it hung).

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace tine_tests {

template <typename Body>
void within(std::chrono::seconds limit, const char* what, Body body) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread dog([&] {
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, limit, [&] { return done; })) {
      std::fprintf(stderr, "HANG: %s did not return within %lld s\n", what,
                   static_cast<long long>(limit.count()));
      std::fflush(stderr);
      std::_Exit(3);
    }
  });
  struct stop_dog {
    std::mutex& m;
    std::condition_variable& cv;
    bool& done;
    std::thread& dog;
    ~stop_dog() {
      {
        std::lock_guard lock(m);
        done = true;
      }
      cv.notify_one();
      dog.join();
    }
  } stop{m, cv, done, dog};  // also when body throws
  body();
}

/// The same for a scope: ends the process with a message if the scope has not ended within
/// `limit` of the watchdog's construction.
class watchdog {
 public:
  explicit watchdog(std::chrono::seconds limit)
      : m_thread([this, limit] {
          std::unique_lock lock(m_mutex);
          if (!m_cv.wait_for(lock, limit, [this] { return m_done; })) {
            std::fprintf(stderr, "HANG: a test did not end within %lld s\n",
                         static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::_Exit(3);
          }
        }) {}
  ~watchdog() {
    {
      std::lock_guard lock(m_mutex);
      m_done = true;
    }
    m_cv.notify_one();
    m_thread.join();
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_done = false;
  std::thread m_thread;  // last: it starts in the constructor, with every member above made
};

}  // namespace tine_tests

#endif  // TINE_TESTS_CORE_WATCHDOG_HPP
