// EXPECT: must return an operation with start(tine::resume_token) and result()
// AT_MOST_LINES: 40
#include <stop_token>
#include <tine/core/core.hpp>

struct request {};

template <>
struct tine::await_adapter<request> {
  struct operation {
    void start(tine::resume_token token) { token.resume(); }
    // no result()
  };
  static operation adapt(request&&, std::stop_token) { return {}; }
};

tine::task<int> parent() {
  co_await request{};
  co_return 0;
}
