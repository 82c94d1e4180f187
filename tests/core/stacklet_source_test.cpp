// Stacklet sources: a thread that installs one gets every stacklet from it (the worker's first
// stacks and spares, and the stacklets a deep recursion grows), each goes back to it when freed,
// a source may hand out more than asked and the stacklet then uses it all, and a thread without
// one still uses the heap. A worker backend whose process boundary names a source gives the
// worker its stacks from there (made anew at installation) and unbind() gives the thread its own
// source and codec back.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <new>
#include <optional>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/core/stacklet.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

#include "tests/queued_scheduler.hpp"
#include "tests/sourced_scheduler.hpp"

namespace d = tine::detail;

namespace {

// Hands out blocks of at least `round_to` bytes from the aligned heap and keeps count.
struct counting_source {
  std::size_t round_to = 0;
  std::size_t allocations = 0;
  std::size_t deallocations = 0;
  std::size_t largest = 0;
  std::vector<std::pair<std::uintptr_t, std::size_t>> blocks;  // live blocks

  static void* allocate(void* self, std::size_t& total) noexcept {
    auto& me = *static_cast<counting_source*>(self);
    if (total < me.round_to) {
      total = me.round_to;
    }
    void* p = ::operator new(total, std::align_val_t{d::stack_alignment}, std::nothrow);
    if (p != nullptr) {
      ++me.allocations;
      me.largest = total > me.largest ? total : me.largest;
      me.blocks.emplace_back(reinterpret_cast<std::uintptr_t>(p), total);
    }
    return p;
  }

  static void deallocate(void* self, void* block, std::size_t total) noexcept {
    auto& me = *static_cast<counting_source*>(self);
    ++me.deallocations;
    for (auto it = me.blocks.begin(); it != me.blocks.end(); ++it) {
      if (it->first == reinterpret_cast<std::uintptr_t>(block)) {
        BOOST_TEST(it->second == total);
        me.blocks.erase(it);
        break;
      }
    }
    ::operator delete(block, std::align_val_t{d::stack_alignment});
  }

  bool holds(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (const auto& [base, size] : blocks) {
      if (a >= base && a < base + size) {
        return true;
      }
    }
    return false;
  }

  d::stacklet_source source{&allocate, &deallocate, this};
};

counting_source* watched = nullptr;
bool all_frames_inside = true;

tine::task<long> chain(long n) {
  long here = n;  // a local in this task's frame
  if (!watched->holds(&here)) {
    all_frames_inside = false;
  }
  if (n == 0) {
    co_return 0;
  }
  long r = 0;
  co_await tine::call(&r, chain, n - 1);
  co_return r + 1;
}

tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

// A backend with no thieves, its own process boundary, whose stacklets come from a source and
// whose frames keep exceptions through the test codec.
class sourcing_backend final : public tine::worker_backend, public tine::process_boundary {
 public:
  explicit sourcing_backend(const d::stacklet_source* source) : m_source(source) {}
  // Takes every fork's continuation: asks for the next offer each time.
  bool offer(d::frame* parent, void* /*child*/,
             tine::deque<d::frame*>& /*continuations*/) override {
    {
      std::lock_guard<std::mutex> hold(m_mutex);
      m_items.push_back(parent);
      ++m_pushes;
    }
    tine::current_worker()->request_offer();
    return true;
  }
  d::frame* take_back() noexcept override {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      return nullptr;
    }
    d::frame* f = m_items.back();
    m_items.pop_back();
    return f;
  }
  tine::process_boundary* boundary() noexcept override { return this; }
  const d::stacklet_source* stacklets() const noexcept override { return m_source; }
  const d::exception_codec& exceptions() const noexcept override { return tine_test::boxing_codec; }
  std::size_t pushes() const {
    std::lock_guard<std::mutex> hold(m_mutex);
    return m_pushes;
  }

 private:
  const d::stacklet_source* m_source;
  mutable std::mutex m_mutex;
  std::deque<d::frame*> m_items;
  std::size_t m_pushes = 0;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(stacklet_source)

BOOST_AUTO_TEST_CASE(a_process_boundary_names_where_the_stacklets_come_from) {
  counting_source src;
  watched = &src;
  all_frames_inside = true;
  sourcing_backend backend(&src.source);
  {
    // The worker's context is made with heap stacks; installing the backend makes them anew.
    tine_test::queued_scheduler sched(backend);
    BOOST_TEST(sched.queue_was_installed());
    BOOST_TEST(tine::sync_wait(sched, chain, 100000L) == 100000);
    BOOST_TEST(all_frames_inside);
    BOOST_TEST(tine::sync_wait(sched, fib, 20) == 6765);
    BOOST_TEST(backend.pushes() > 0u);  // the forks' continuations went to the backend
  }
  BOOST_TEST(src.allocations > 3);
  BOOST_TEST(src.allocations == src.deallocations);
  BOOST_TEST(src.blocks.empty());
}

BOOST_AUTO_TEST_CASE(unbind_gives_the_thread_its_source_and_codec_back) {
  counting_source src;
  sourcing_backend backend(&src.source);
  {
    tine::worker_context context;
    context.bind();
    context.set_backend(&backend);
    BOOST_TEST(context.backend() == &backend);
    BOOST_TEST(d::read_tls_stacklet_source() == &src.source);
    BOOST_TEST(d::read_tls_exception_codec() == &tine_test::boxing_codec);
    BOOST_TEST(src.allocations == 2u);  // the idle stack and its spare, made anew from it
    context.set_backend(&backend);      // again: the stacks came from it already
    BOOST_TEST(src.allocations == 2u);
    context.unbind();
    BOOST_TEST(context.backend() == nullptr);
    BOOST_TEST(d::read_tls_stacklet_source() == nullptr);
    BOOST_TEST(d::read_tls_exception_codec() == nullptr);
  }
  BOOST_TEST(src.deallocations == 2u);  // the stacks went back to the source with the context
}

BOOST_AUTO_TEST_CASE(every_stacklet_of_the_thread_comes_from_it_and_goes_back) {
  counting_source src;
  watched = &src;
  all_frames_inside = true;
  {
    tine_test::sourced_scheduler sched(&src.source);
    BOOST_TEST(src.allocations >= 2);  // the worker's first stack and its spare
    // 100,000 frames deep: the stack grows through several stacklets, all from the source.
    BOOST_TEST(tine::sync_wait(sched, chain, 100000L) == 100000);
    BOOST_TEST(all_frames_inside);
    BOOST_TEST(src.allocations > 3);
    BOOST_TEST(tine::sync_wait(sched, fib, 20) == 6765);
  }
  BOOST_TEST(src.allocations == src.deallocations);
  BOOST_TEST(src.blocks.empty());
}

BOOST_AUTO_TEST_CASE(a_source_may_hand_out_more_and_the_stacklet_uses_it) {
  counting_source src;
  src.round_to = std::size_t{1} << 20;
  watched = &src;
  all_frames_inside = true;
  {
    tine_test::sourced_scheduler sched(&src.source);
    // 1 MiB stacklets: a 2,000-deep chain (a few hundred KiB of frames) fits in the first one.
    const std::size_t before = src.allocations;
    BOOST_TEST(tine::sync_wait(sched, chain, 2000L) == 2000);
    BOOST_TEST(src.allocations == before);
    BOOST_TEST(all_frames_inside);
    BOOST_TEST(src.largest == std::size_t{1} << 20);
  }
  BOOST_TEST(src.allocations == src.deallocations);
}

BOOST_AUTO_TEST_CASE(without_a_source_the_heap_is_used) {
  counting_source src;
  watched = &src;
  all_frames_inside = true;
  tine::inline_scheduler sched;  // no source installed on this thread
  BOOST_TEST(tine::sync_wait(sched, chain, 10L) == 10);
  BOOST_TEST(!all_frames_inside);
  BOOST_TEST(src.allocations == 0);
  d::stacklet* s = d::make_stacklet(1000, nullptr);
  BOOST_TEST(s->source == nullptr);
  d::free_stack(s);
}

BOOST_AUTO_TEST_SUITE_END()
