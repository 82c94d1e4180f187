// EXPECT: COMPILES
// FLAGS: -Wall -Wextra -Werror
// The same shapes written correctly: this file must compile, so the failures above are real.
#include <functional>
#include <string>
#include <string_view>
#include <tine/core/core.hpp>
#include <vector>

tine::task<int> consume(std::string s) { co_return static_cast<int>(s.size()); }
inline constexpr auto twice = [](auto x) -> tine::task<int> { co_return 2 * x; };
tine::task<long> answer() { co_return 42; }

struct Big {
  int value;
};
struct Derived : Big {};
tine::task<int> value_of(const Big& b) { co_return b.value; }
tine::task<int> view_size(std::string_view s) { co_return static_cast<int>(s.size()); }
tine::task<int> length(const std::string& s) { co_return static_cast<int>(s.size()); }
inline constexpr auto value_of_any = [](const auto& b) -> tine::task<int> { co_return b.value; };
// Not a coroutine: the trial call instantiates its body, where the argument still converts.
inline constexpr auto wrap = [](auto x) { return twice(x); };

struct counter {
  int base = 100;
  tine::task<int> plus(int k) { co_return base + k; }
};

tine::task<int> parent() {
  int a = 0;
  int b = 0;
  long c = 0;
  int base = 1;
  auto add = [base](int k) -> tine::task<int> { co_return base + k; };
  int d = 0;
  co_await tine::fork(&a, consume, std::string("by value is safe"));
  co_await tine::fork(&b, twice, 21);
  co_await tine::fork(&c, answer);
  co_await tine::fork(&d, add, 2);

  // Lvalues to reference parameters: the parent's locals outlive the join.
  Big big{42};
  const std::string text = "named";
  int e[6] = {};
  co_await tine::fork(&e[0], value_of, big);
  co_await tine::fork(&e[1], value_of_any, big);
  co_await tine::fork(&e[2], length, text);
  co_await tine::fork(&e[3], value_of, std::ref(big));  // binds to big itself, not to the wrapper
  // Prvalues to by-value parameters, including by-value auto and a non-coroutine wrapper.
  co_await tine::fork(&e[4], view_size, "a literal lives for the whole program");
  co_await tine::fork(&e[5], wrap, 21);

  // A member function through an lvalue object or a pointer.
  counter obj;
  int f[2] = {};
  co_await tine::fork(&f[0], &counter::plus, obj, 1);
  co_await tine::fork(&f[1], &counter::plus, &obj, 2);
  co_await tine::join();

  // call: a temporary of the parameter's type (or derived from it) outlives the child.
  int g[5] = {};
  co_await tine::call(&g[0], value_of, Big{1});
  co_await tine::call(&g[1], value_of, Derived{});
  co_await tine::call(&g[2], value_of_any, Big{3});
  co_await tine::call(&g[3], length, std::string("call waits for the child"));
  co_await tine::call(&g[4], &counter::plus, counter{}, 4);
  co_await tine::join();

  // The forms without a result, a function pointer as the callable (not taken for a result
  // pointer), and the other requests, each awaited: no unused-result warning.
  tine::task<long> (*answer_ptr)() = &answer;
  co_await tine::fork(answer_ptr);
  co_await tine::fork(&answer);
  co_await tine::call(consume, std::string("discarded"));
  co_await tine::call(&c, answer_ptr);
  co_await tine::join();
  tine::stack_array<int> h = co_await tine::stack_alloc<int>(2);
  co_return a + b + static_cast<int>(c) + d + e[0] + f[0] + g[0] + static_cast<int>(h.size());
}

// Reducers by reference or pointer, monoids of each kind, deterministic streams.
struct concat {
  using value_type = std::string;
  static std::string identity() { return {}; }
  static void reduce(std::string& left, std::string& right) { left += right; }
};

tine::task<void> note(tine::reducer<concat>& text, tine::reducer<tine::sum<long>>* total, int k) {
  text.view() += "k";
  total->view() += k;
  co_return;
}

tine::task<long> reducers_and_streams() {
  tine::reducer<concat> text;
  tine::reducer<tine::sum<long>> total;
  tine::reducer<tine::product<double>> product;
  tine::reducer<tine::min<int>> least;
  tine::reducer<tine::max<float>> most;
  tine::reducer<tine::append<std::vector<int>>> items;
  co_await tine::fork(note, text, &total, 1);
  co_await tine::call(note, text, &total, 2);
  co_await tine::join();
  tine::min<int>::update(least.view(), 3);
  tine::max<float>::update(most.view(), 1.5F);
  product.view() *= 2.0;
  items.view().push_back(4);
  tine::dprng rng = co_await tine::dprng::current();
  co_return total.get() + static_cast<long>(text.get().size()) + static_cast<long>(rng() % 2);
}

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

tine::task<void> moves(any_scheduler& elsewhere) { co_await tine::resume_on(elsewhere); }

int run(any_scheduler& sched) {
  tine::sync_wait(sched, moves, sched);
  (void)tine::sync_wait(sched, tine::dprng::seeded(7, reducers_and_streams));
  return tine::sync_wait(sched, parent);
}

// A worker backend whose frames may leave the process: its boundary gives the exception codec.
struct with_codec final : tine::process_boundary {
  const tine::detail::exception_codec& exceptions() const noexcept override { return codec; }
  tine::detail::exception_codec codec{nullptr, nullptr, nullptr};
};

struct leaving final : tine::worker_backend {
  bool offer(tine::detail::frame*, void*, tine::deque<tine::detail::frame*>&) override {
    return false;
  }
  tine::detail::frame* take_back() noexcept override { return nullptr; }
  tine::process_boundary* boundary() noexcept override { return &edge; }
  with_codec edge;
};

leaving backend_with_a_boundary;
