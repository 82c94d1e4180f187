// The old include paths of moved core headers still work (until tine 0.3): each forwarding
// header declares what its file used to.
#include <tine/core/context.hpp>       // forwards to worker_context.hpp
#include <tine/core/dprng.hpp>         // to reducers/
#include <tine/core/future.hpp>        // to application/
#include <tine/core/future_state.hpp>  // to application/
#include <tine/core/monoids.hpp>       // to reducers/
#include <tine/core/reducer.hpp>       // to reducers/
#include <tine/core/resume_on.hpp>     // to application/
#include <tine/core/spawn.hpp>         // to application/
#include <tine/core/stop_scope.hpp>    // to application/
#include <tine/core/when_all.hpp>      // to application/
#include <tine/schedulers/inline_scheduler.hpp>

#include <boost/test/unit_test.hpp>
#include <tuple>
#include <type_traits>
#include <utility>

BOOST_AUTO_TEST_CASE(context_hpp_still_declares_worker_context) {
  // A scheduler plugin written against the old path constructs and binds a worker context.
  static_assert(!std::is_copy_constructible_v<tine::worker_context>);
  tine::worker_context worker;
  worker.bind();
  BOOST_TEST(tine::current_worker() != nullptr);
  worker.unbind();
  BOOST_TEST(tine::current_worker() == nullptr);
}

namespace {
tine::task<int> seven() { co_return 7; }
}  // namespace

BOOST_AUTO_TEST_CASE(application_and_reducer_paths_still_declare_their_names) {
  // Code written against the old core/ paths spawns, joins futures and reduces as before.
  tine::inline_scheduler s;
  tine::future<int> a = tine::spawn(s, seven);
  tine::future<int> b = tine::spawn(s, seven);
  auto both = tine::when_all(std::move(a), std::move(b)).get();
  BOOST_TEST(std::get<0>(both) + std::get<1>(both) == 14);
  tine::reducer<tine::sum<int>> total;
  total.view() += 5;
  BOOST_TEST(total.get() == 5);
  static_assert(std::is_class_v<tine::dprng>);
  static_assert(std::is_class_v<std::remove_cvref_t<decltype(tine::stop_scope)>>);
  static_assert(std::is_class_v<tine::detail::future_state<int>>);
  static_assert(std::is_class_v<decltype(tine::resume_on(s))>);
}
