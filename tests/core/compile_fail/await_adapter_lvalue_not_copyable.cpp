// EXPECT: write co_await std::move(x)
// AT_MOST_LINES: 40
#include <memory>
#include <stop_token>
#include <tine/core/core.hpp>

// A move-only foreign object awaited by name: adapt would need a copy.
struct handle {
  std::unique_ptr<int> p;
};

template <>
struct tine::await_adapter<handle> {
  struct operation {
    handle h;
    void start(tine::resume_token token) { token.resume(); }
    int result() const { return *h.p; }
  };
  static operation adapt(handle&& h, std::stop_token) { return {std::move(h)}; }
};

tine::task<int> parent() {
  handle h{std::make_unique<int>(7)};
  co_return co_await h;
}
