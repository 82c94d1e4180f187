// EXPECT: abstract
// EXPECT: exceptions
// AT_MOST_LINES: 20
// A backend whose frames may leave the process (it has a process boundary) but that says nothing
// of how their exceptions are kept: the boundary cannot be made, since an exception_ptr means
// nothing in another process.
#include <tine/core/worker_backend.hpp>

struct no_codec : tine::process_boundary {
  bool stops_reach(const tine::detail::frame*) const noexcept override { return false; }
};

struct leaving : tine::worker_backend {
  bool offer(tine::detail::frame*, void*, tine::deque<tine::detail::frame*>&) override {
    return false;
  }
  tine::detail::frame* take_back() noexcept override { return nullptr; }
  tine::process_boundary* boundary() noexcept override { return &edge; }
  no_codec edge;
};

leaving backend;
