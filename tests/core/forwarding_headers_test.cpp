// The old include paths of moved core headers still work (until tine 0.3): each forwarding
// header, included alone, declares what its file used to.
#include <tine/core/context.hpp>  // forwards to worker_context.hpp

#include <boost/test/unit_test.hpp>
#include <type_traits>

BOOST_AUTO_TEST_CASE(context_hpp_still_declares_worker_context) {
  // A scheduler plugin written against the old path constructs and binds a worker context.
  static_assert(!std::is_copy_constructible_v<tine::worker_context>);
  tine::worker_context worker;
  worker.bind();
  BOOST_TEST(tine::current_worker() != nullptr);
  worker.unbind();
  BOOST_TEST(tine::current_worker() == nullptr);
}
